package fakellm

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// Dim is the length of the fake embeddings.
const Dim = 256

// EmbedRequest is a recorded embeddings request.
type EmbedRequest struct {
	Model  string
	Input  []string
	APIKey string
}

// EmbedRequests returns every embeddings request so far.
func (s *Server) EmbedRequests() []EmbedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EmbedRequest(nil), s.embeds...)
}

// EmbedWith makes the server answer embeddings requests with f's vectors
// instead of Embed's: a benchmark's own, of the dimension it measures.
func (s *Server) EmbedWith(f func(text string) []float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed = f
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if _, err := readBody(r, &body); err != nil {
		writeJSON(w, 400, openaiError(400, Reply{ErrorMessage: err.Error()}))
		return
	}
	var input []string
	if err := json.Unmarshal(body.Input, &input); err != nil {
		var one string
		if err := json.Unmarshal(body.Input, &one); err != nil {
			writeJSON(w, 400, openaiError(400, Reply{ErrorMessage: "input must be a string or an array of strings"}))
			return
		}
		input = []string{one}
	}
	s.mu.Lock()
	s.embeds = append(s.embeds, EmbedRequest{Model: body.Model, Input: input, APIKey: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")})
	s.mu.Unlock()

	s.mu.Lock()
	embed := s.embed
	s.mu.Unlock()
	if embed == nil {
		embed = Embed
	}
	data := make([]any, len(input))
	tokens := 0
	for i, text := range input {
		v := embed(text)
		tokens += len(strings.Fields(text))
		var vec any = v
		if body.EncodingFormat == "base64" {
			buf := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
			}
			vec = base64.StdEncoding.EncodeToString(buf)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": vec}
	}
	writeJSON(w, 200, map[string]any{
		"object": "list", "data": data, "model": body.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// Embed is the fake embedding of text: deterministic, Dim long, L2-normalised,
// and close for paraphrases. Words are lowercased, stop words dropped, the
// rest stemmed and mapped through a small synonym table (so "neovim" and
// "editor", "PT" and "time zone" meet), then hashed into signed buckets.
// Text with no content words embeds as the zero vector.
func Embed(text string) []float32 {
	v := make([]float32, Dim)
	for _, w := range concepts(text) {
		h := fnv.New64a()
		_, _ = h.Write([]byte(w))
		sum := h.Sum64()
		sign := float32(1)
		if sum>>63 == 1 {
			sign = -1
		}
		v[sum%Dim] += sign
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return v
	}
	scale := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= scale
	}
	return v
}

// synonymGroups lists words that mean one thing to the fake model; the first
// of each group is the concept the others map to. Multi-word entries are
// matched as phrases.
var synonymGroups = [][]string{
	{"editor", "editors", "neovim", "nvim", "vim", "emacs", "vscode", "vs code", "ide", "text editor"},
	{"timezone", "time", "timezones", "time zone", "tz", "pt", "pst", "pdt", "pacific", "utc", "gmt", "est", "edt", "cet", "eastern time"},
	{"summary", "summaries", "summarize", "summarise", "summarized", "tldr", "recap", "digest", "overview"},
	{"pr", "prs", "pull request", "pull requests", "merge request", "mr"},
	{"prefer", "prefers", "preferred", "preference", "like", "likes", "love", "loves", "favorite", "favourite", "want", "wants"},
	{"reply", "replies", "answer", "answers", "respond", "response", "responses"},
	{"short", "brief", "concise", "terse", "succinct"},
	{"long", "detailed", "verbose", "thorough"},
	{"meeting", "meetings", "call", "calls", "standup", "sync"},
	{"deploy", "deployment", "release", "ship", "rollout"},
	{"bug", "bugs", "issue", "issues", "defect", "ticket"},
	{"use", "uses", "using", "used"},
}

var (
	synonyms = map[string]string{}
	phrases  = map[string]bool{} // first words of multi-word entries
)

func init() {
	for _, g := range synonymGroups {
		for _, w := range g {
			synonyms[w] = g[0]
			if first, _, ok := strings.Cut(w, " "); ok {
				phrases[first] = true
			}
		}
	}
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the is are was were be been am to of in on at for with and or but
		i me my mine you your he him his she her they them their we us our it its this that these those
		s do does did please about as by from all so very just also has have had will would should can could`) {
		stopWords[w] = true
	}
}

// concepts turns text into the words Embed hashes.
func concepts(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var out []string
	for i := 0; i < len(words); i++ {
		if phrases[words[i]] && i+1 < len(words) {
			if c, ok := synonyms[words[i]+" "+words[i+1]]; ok {
				out = append(out, c)
				i++
				continue
			}
		}
		w := words[i]
		if stopWords[w] {
			continue
		}
		if c, ok := synonyms[w]; ok {
			out = append(out, c)
			continue
		}
		w = stem(w)
		if c, ok := synonyms[w]; ok {
			w = c
		}
		out = append(out, w)
	}
	return out
}

// stem strips the commonest English suffixes; crude, but the same word in
// two forms lands in the same bucket.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}
