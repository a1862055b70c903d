// Package detect finds credentials and sensitive personal data in text: the
// secrets memory refuses and the session log redacts, and the personal data
// (government ids, payment cards, bank accounts, phone numbers, health,
// finances and the other special categories) memory refuses or keeps only
// where it was said. Its labelled corpus is memory/testdata/detectors.json, shared with memory's
// review tests.
//
// It is a leaf: it imports no mnemo package.
package detect
