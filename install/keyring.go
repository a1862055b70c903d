package install

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mnemo-bot/mnemo/db"
)

// Keyring seals and opens tokens with AES-256-GCM. Its first key is the
// current one, which seals; every key opens what it sealed, so a key can
// be rotated in (`mnemo keys rotate` reseals every token under the current
// key) before the old one is dropped.
type Keyring struct {
	current string
	keys    map[string]cipher.AEAD
	raw     map[string][]byte
}

// ErrKeyUnknown is a sealed token whose key is not in the keyring.
var ErrKeyUnknown = errors.New("sealed with a key that MNEMO_ENCRYPTION_KEY does not hold")

var keyID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`)

// ParseKeyring reads MNEMO_ENCRYPTION_KEY: comma-separated `id:base64`
// entries, each a 32-byte key in standard base64, the first the current
// one (`openssl rand -base64 32` makes a key). A single key without an id
// has the id "k1".
func ParseKeyring(s string) (*Keyring, error) {
	k := &Keyring{keys: map[string]cipher.AEAD{}, raw: map[string][]byte{}}
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		id, b64, ok := strings.Cut(entry, ":")
		if !ok {
			if i > 0 {
				return nil, fmt.Errorf("key %d has no id: write id:base64 for every key after the first", i+1)
			}
			id, b64 = "k1", entry
		}
		if !keyID.MatchString(id) {
			return nil, fmt.Errorf("key id %q: use up to 32 letters, digits, '.', '_' or '-'", id)
		}
		if _, dup := k.keys[id]; dup {
			return nil, fmt.Errorf("key id %q appears twice", id)
		}
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(raw) != 32 {
			return nil, fmt.Errorf("key %q is not 32 bytes in base64 (openssl rand -base64 32 makes one)", id)
		}
		block, err := aes.NewCipher(raw)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		if k.current == "" {
			k.current = id
		}
		k.keys[id], k.raw[id] = aead, raw
	}
	if k.current == "" {
		return nil, errors.New("no key")
	}
	return k, nil
}

// Current is the id of the key that seals.
func (k *Keyring) Current() string { return k.current }

// Seal encrypts a token under the current key, bound to the team it is
// for (additional data): it opens only as that team's.
func (k *Keyring) Seal(team, token string) (db.Sealed, error) {
	aead := k.keys[k.current]
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return db.Sealed{}, err
	}
	return db.Sealed{Ciphertext: aead.Seal(nil, nonce, []byte(token), []byte(team)), Nonce: nonce, KeyID: k.current}, nil
}

// Open decrypts a sealed token of team.
func (k *Keyring) Open(team string, s db.Sealed) (string, error) {
	aead, ok := k.keys[s.KeyID]
	if !ok {
		return "", fmt.Errorf("token of %s: %w (key id %q)", team, ErrKeyUnknown, s.KeyID)
	}
	if len(s.Nonce) != aead.NonceSize() {
		return "", fmt.Errorf("token of %s: bad nonce", team)
	}
	plain, err := aead.Open(nil, s.Nonce, s.Ciphertext, []byte(team))
	if err != nil {
		return "", fmt.Errorf("token of %s does not open with key %q: %w", team, s.KeyID, err)
	}
	return string(plain), nil
}

// Derive returns a 32-byte key for purpose, derived (HKDF-SHA256) from the
// current key, so one secret serves several uses without reuse.
func (k *Keyring) Derive(purpose string) []byte {
	out, err := hkdf.Key(sha256.New, k.raw[k.current], nil, "mnemo "+purpose, 32)
	if err != nil {
		panic(err) // only for a length HKDF can't make
	}
	return out
}
