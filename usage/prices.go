package usage

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	InputPerMTok, OutputPerMTok float64
}

// Prices maps a model name to its price (MNEMO_PRICES). A model without a
// price has no estimated cost.
type Prices map[string]Price

// ParsePrices reads MNEMO_PRICES: entries model=input/output (dollars per
// million tokens) separated by commas or newlines, or the path of a file
// holding them (# starts a comment). "" is no prices.
func ParsePrices(s string) (Prices, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if !strings.Contains(s, "=") {
		b, err := os.ReadFile(s)
		if err != nil {
			return nil, fmt.Errorf("prices file: %w", err)
		}
		s = string(b)
	}
	p := Prices{}
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' }) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		model, rates, ok := strings.Cut(line, "=")
		in, out, ok2 := strings.Cut(rates, "/")
		model = strings.TrimSpace(model)
		if !ok || !ok2 || model == "" {
			return nil, fmt.Errorf("price %q is not model=input/output, in dollars per million tokens", line)
		}
		i, err1 := strconv.ParseFloat(strings.TrimSpace(in), 64)
		o, err2 := strconv.ParseFloat(strings.TrimSpace(out), 64)
		if err1 != nil || err2 != nil || i < 0 || o < 0 {
			return nil, fmt.Errorf("price %q: input and output must be non-negative numbers of dollars per million tokens", line)
		}
		p[model] = Price{InputPerMTok: i, OutputPerMTok: o}
	}
	return p, nil
}

// Cost is the estimated cost in dollars of tokens of model, and whether
// model has a price.
func (p Prices) Cost(model string, input, output int64) (float64, bool) {
	pr, ok := p[model]
	if !ok {
		return 0, false
	}
	return (float64(input)*pr.InputPerMTok + float64(output)*pr.OutputPerMTok) / 1e6, true
}
