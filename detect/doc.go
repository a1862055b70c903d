// Package detect finds credentials and sensitive personal data in text: the
// secrets memory refuses and the session log redacts, and the personal data
// (government ids, payment cards, bank accounts, phone numbers, health,
// finances and the other special categories) memory refuses or keeps only
// where it was said.
//
// detect.go holds the core (types, gates, scan, Detect, Sensitive, Redact);
// secrets.go, numbers.go and personal*.go hold one family of detectors
// each; personal.go reads curated terms, personal_classes.go reads the same
// categories by class (a medical suffix, a drug stem, a frame such as
// "diagnosed with …" or "ran for city council"); redactor.go holds
// Redactor, which redacts a streamed answer as it grows.
// A personal category is read by meaning, not grammar: "I take", "she
// takes", "Alice takes" and the canonical "Takes antidepressants" are one
// fact. The labelled corpora are memory/testdata/detectors.json and
// memory/testdata/sensitive_statements.json, shared with memory's tests;
// memory/testdata/sensitive_statements_blind.json is held out from tuning.
//
// It is a leaf: it imports no mnemo package.
package detect
