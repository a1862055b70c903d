//go:build mnemo_mutant_per_message_key

package threads

// A deliberately broken build for `make eval-mutation`: every message is
// keyed as its own thread. The eval suite must fail against it.
func init() {
	rootOf = func(msg, _ TS) TS { return msg }
}
