package threads

import (
	"regexp"
	"testing"
)

// benchTS mixes valid and rejected (label-suffixed, short) timestamps.
var benchTS = []string{"1700000000.000100", "17000000.memory-explicit", "1700000000.1", "1800000123.456789"} // rejected ones included

// BenchmarkParseTS measures the hand-written strict parser.
func BenchmarkParseTS(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = ParseTS("ts", benchTS[i%len(benchTS)])
	}
}

// BenchmarkParseTSRegexpBaseline is the obvious alternative, a regexp
// match, measured in the same run for comparison.
func BenchmarkParseTSRegexpBaseline(b *testing.B) {
	re := regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{6}$`)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = re.MatchString(benchTS[i%len(benchTS)])
	}
}
