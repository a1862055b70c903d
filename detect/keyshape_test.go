package detect

import (
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Keys as `openssl rand -base64 32` makes them, the form MNEMO_ENCRYPTION_KEY
// takes (install.ParseKeyring: id:base64 of 32 bytes, comma-separated).
const (
	keyA = "EoprIzxheeDL+0i0/Vvm+Oa5cp03Z8iL7vtIseIqRJ4="
	keyB = "zWGiRXuRaudanaJKc65OfJ3YK64WfeEMTI+LdLjNERc="
)

// An encryption key's value is a key by its shape, however it is written
// about: only as a setting (MNEMO_ENCRYPTION_KEY=k1:…) was it redacted, so
// "the encryption key is k1:…" kept it.
func TestEncryptionKeyValueIsRedactedInProse(t *testing.T) {
	t.Parallel()
	const m = RedactedMarker
	for _, tc := range []struct{ name, in, want string }{
		{"after 'the encryption key is'", "the encryption key is k1:" + keyA, "the encryption key is k1:" + m},
		{"pasted in a sentence", "I pasted k1:" + keyA + " into the config, is that right?", "I pasted k1:" + m + " into the config, is that right?"},
		{"a keyring in prose", "rotate to k2:" + keyB + ",k1:" + keyA + " and restart", "rotate to k2:" + m + ",k1:" + m + " and restart"},
		{"a spaced keyring", "we run new:" + keyB + ", old:" + keyA + " now", "we run new:" + m + ", old:" + m + " now"},
		{"in brackets and quotes", "(`k1:" + keyA + "`)", "(`k1:" + m + "`)"},
		{"an id with punctuation", "key 2024-06.prod:" + keyB + " is current", "key 2024-06.prod:" + m + " is current"},
		{"at the end of a sentence", "Use k1:" + keyA + ".", "Use k1:" + m + "."},
		// Still one redaction as a setting.
		{"the setting", "MNEMO_ENCRYPTION_KEY=k1:" + keyA, "MNEMO_ENCRYPTION_KEY=" + m},
		// The same shape that is a digest, a public key, a placeholder, or
		// not 32 bytes is no encryption key.
		{"a go.sum line", "golang.org/x/text v0.3.0 h1:g61tztE5qeGQ89tm6NTjjM9VPIm088od1l6aSorWRWg=",
			"golang.org/x/text v0.3.0 h1:g61tztE5qeGQ89tm6NTjjM9VPIm088od1l6aSorWRWg="},
		{"a go.sum go.mod line", "golang.org/x/text v0.3.0/go.mod h1:NqM8EUOU14njkJ3fqMW+pc6Ldnwhi/IjpwHt7yyuwOQ=",
			"golang.org/x/text v0.3.0/go.mod h1:NqM8EUOU14njkJ3fqMW+pc6Ldnwhi/IjpwHt7yyuwOQ="},
		{"a sha256 digest", "integrity sha256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU= matches", "integrity sha256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU= matches"},
		{"a SHA-256 digest", "SHA-256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "SHA-256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
		{"an ssh fingerprint", "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 is the host", "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 is the host"},
		{"a public key", "pubkey:" + keyB, "pubkey:" + keyB},
		{"the zero key", "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
		{"a placeholder", "k1:yourBase64KeyGoesHere000000000000000000000=", "k1:yourBase64KeyGoesHere000000000000000000000="},
		{"not 32 bytes", "k1:c2hvcnQga2V5IGhlcmU= is too short", "k1:c2hvcnQga2V5IGhlcmU= is too short"},
		{"inside a longer run", "blob k1:" + keyA + "QUJD", "blob k1:" + keyA + "QUJD"},
		{"how to make one", "write it as k1:<base64 of 32 bytes>, from openssl rand -base64 32", "write it as k1:<base64 of 32 bytes>, from openssl rand -base64 32"},
	} {
		require.Equal(t, tc.want, Redact(tc.in), tc.name)
	}
}

// keyBody is n full lines of a key's base64 body and a short last one,
// random but the same every run.
func keyBody(seed string, n int) []string {
	var raw []byte
	for h := sha512.Sum512([]byte(seed)); len(raw) < n*48+20; h = sha512.Sum512(h[:]) {
		raw = append(raw, h[:]...)
	}
	b := base64.StdEncoding.EncodeToString(raw[:n*48+20])
	lines := make([]string, 0, n+1)
	for len(b) > 64 {
		lines, b = append(lines, b[:64]), b[64:]
	}
	return append(lines, b)
}

// streamBreak is the agent's stream cut: the text through its last
// whitespace or rune outside ASCII, which no secret holds.
func streamBreak(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= utf8.RuneSelf })
	if i < 0 {
		return ""
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return s[:i+n]
}

// A key's base64 body pasted without its BEGIN line is a secret from its
// first full line: a streamed answer shows what Redact gives for the text so
// far, through its last break, so a body found only at its second line had
// its first shown.
func TestBarePEMBodyIsASecretFromItsFirstLine(t *testing.T) {
	t.Parallel()
	for i := range 20 {
		lines := keyBody(fmt.Sprint("key ", i), 6)
		require.Equal(t, "here it is:\n"+RedactedMarker+"\n", Redact("here it is:\n"+lines[0]+"\n"), "line 1 of body %d", i)
		require.Equal(t, "```\n"+RedactedMarker+"\n", Redact("```\n"+lines[0]+"\n"), "line 1 of body %d in a code block", i)
		require.Equal(t, RedactedMarker+"\r\n", Redact(lines[0]+"\r\n"), "line 1 of body %d before CRLF", i)
		require.Equal(t, "the shared one:\n"+RedactedMarker, Redact("the shared one:\n"+lines[0]), "line 1 of body %d after 'shared', not a digest", i)

		// Streamed a byte at a time, as the agent's Throttle streams: what
		// is shown never holds a piece of the body. A redaction that
		// reaches back into what was shown (the body grew by a line) stops
		// the stream there, and the reply redacted whole replaces it.
		text := "Here is the key:\n" + strings.Join(lines, "\n") + "\nKeep it safe."
		shown := ""
		for end := 1; end <= len(text); end++ {
			cut := streamBreak(Redact(text[:end]))
			if !strings.HasPrefix(cut, shown) {
				break
			}
			shown = cut
		}
		require.Contains(t, shown, "Here is the key:\n"+RedactedMarker, "body %d", i)
		for _, line := range lines {
			require.NotContains(t, shown, line[:8], "body %d", i)
		}
		require.Equal(t, "Here is the key:\n"+RedactedMarker+"\nKeep it safe.", Redact(text))
	}
	// Ordinary base64 and its neighbours stay: a hash (in hex, or a
	// digest named beside it), a UUID, an identifier, a line of prose.
	for _, text := range []string{
		"the checksum:\n9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n",
		"9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08",
		"the sha384 digest is\n" + keyBody("digest", 1)[0] + "\n",
		"<script integrity=\"sha384-" + keyBody("sri", 1)[0] + "\">",
		"id 123e4567-e89b-12d3-a456-426614174000\n",
		"AbstractSingletonProxyFactoryBeanAbstractSingletonProxyFactoryBe\n",
		"aGVsbG8gd29ybGQ=\n",
		"ZXhhbXBsZQ\n",
	} {
		require.Equal(t, text, Redact(text), text)
	}
}
