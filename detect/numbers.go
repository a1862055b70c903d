package detect

import (
	"regexp"
	"strings"
)

const (
	idTail = `(?:\s+(?:number|no\.?|num|#))?\s*(?:is\s+|['’]s\s+|:\s*|=\s*)?`
)

// numberDetectors find identity numbers: government ids, payment cards,
// bank accounts and phone numbers.
var numberDetectors = []detector{
	// Government ids.
	{name: "US SSN", category: CategoryGovernmentID, gate: gate{minDigits: 9}, reason: "a US Social Security number", isolated: true, unlabelled: true, valid: ssnValid(0),
		re: regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`)},
	{name: "US SSN after keyword", category: CategoryGovernmentID, gate: gate{words: []string{"ssn", "social"}, minDigits: 9}, reason: "a US Social Security number", group: 1, isolated: true, valid: ssnValid(1),
		re: regexp.MustCompile(`(?i)\b(?:ssn|social(?:\s+security)?(?:\s+(?:number|no\.?|#))?)\b\D{0,15}?(\d{3}` + sep + `\d{2}` + sep + `\d{4})\b`)},
	{name: "Canadian SIN", category: CategoryGovernmentID, gate: gate{words: []string{"sin", "insurance"}, minDigits: 9}, reason: "a Canadian Social Insurance Number", group: 1, isolated: true, valid: sinValid,
		re: regexp.MustCompile(`(?:\bSIN\b|(?i:\bsin\s+(?:number|no\.?|#)|\bsocial\s+insurance(?:\s+(?:number|no\.?|#))?))` + idTail + `(\d{3}` + sep + `\d{3}` + sep + `\d{3})\b`)},
	{name: "UK NI number", category: CategoryGovernmentID, gate: gate{minDigits: 6}, reason: "a UK National Insurance number", valid: ninoValid(0),
		re: regexp.MustCompile(`\b[A-Z]{2} \d{2} \d{2} \d{2} [A-D]\b`)},
	{name: "UK NI number after keyword", category: CategoryGovernmentID, gate: gate{words: []string{"ni", "national"}, minDigits: 6}, reason: "a UK National Insurance number", group: 1, valid: ninoValid(1),
		re: regexp.MustCompile(`(?i)\b(?:ni|nino|national insurance)` + idTail + `([A-Z]{2}` + sep + `\d{2}` + sep + `\d{2}` + sep + `\d{2}` + sep + `[A-D])\b`)},
	{name: "passport number", category: CategoryGovernmentID, gate: gate{words: []string{"passport"}, minDigits: 2}, reason: "a passport number", group: 1, valid: idNumber(1, 2),
		re: regexp.MustCompile(`(?i)\bpassport` + idTail + `([A-Z0-9]{6,9})\b`)},
	{name: "identity document number", category: CategoryGovernmentID, gate: gate{words: []string{"licen", "national", "card", "tax", "social", "personnummer", "aadhaar", "bsn"}, minDigits: 4}, reason: "an identity document number", group: 1, valid: idNumber(1, 4),
		re: regexp.MustCompile(`(?i)\b(?:driver['’]?s? licen[cs]e|driving licen[cs]e|national (?:id|identity)(?: card)?|id card|tax (?:id|identification)|social insurance|personnummer|aadhaar|bsn)` + idTail + `([A-Z0-9][A-Z0-9-]{4,18}[A-Z0-9])\b`)},

	// Payment cards and bank accounts.
	{name: "payment card number", category: CategoryPaymentCard, gate: gate{minDigits: 13}, reason: "a payment card number", isolated: true, unlabelled: true, valid: cardValid,
		re: regexp.MustCompile(`\b\d(?:` + sep + `\d){12,18}\b`)},
	{name: "IBAN", category: CategoryBankAccount, gate: gate{minDigits: 2, minLen: 15}, reason: "an IBAN bank account number", isolated: true, valid: ibanMatch,
		re: regexp.MustCompile(`(?i)\b[A-Z]{2}\d{2}(?:[ .-]?[A-Z0-9]{4}){2,7}(?:[ .-]?[A-Z0-9]{1,3})?\b`)},
	{name: "US routing number", category: CategoryBankAccount, gate: gate{words: []string{"routing", "aba"}, minDigits: 9}, reason: "a US bank routing number", group: 1, isolated: true, valid: abaValid,
		re: regexp.MustCompile(`(?i)\b(?:routing|aba)` + idTail + `(\d{9})\b`)},
	{name: "bank account number", category: CategoryBankAccount, gate: gate{words: []string{"account", "acct"}, minDigits: 6}, reason: "a bank account number", group: 1, isolated: true, valid: digitCount(1, 6, 17),
		re: regexp.MustCompile(`(?i)\b(?:bank|checking|savings|current)\s+(?:account|acct)\.?` + idTail + `(\d[\d -]{4,20}\d)\b`)},
	{name: "UK sort code", category: CategoryBankAccount, gate: gate{words: []string{"sort"}, minDigits: 6}, reason: "a UK bank sort code", group: 1, isolated: true,
		re: regexp.MustCompile(`(?i)\bsort\s*code` + idTail + `(\d{2}-\d{2}-\d{2})\b`)},

	// Phone numbers.
	{name: "international phone number", category: CategoryPhone, gate: gate{words: []string{"+"}, minDigits: 8}, reason: "a phone number", isolated: true, valid: digitCount(0, 8, 15),
		re: regexp.MustCompile(`\+[1-9]\d{0,3}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,5})){1,6}`)},
	{name: "US phone number", category: CategoryPhone, gate: gate{minDigits: 10}, reason: "a phone number", isolated: true, unlabelled: true, valid: nanpValid,
		re: regexp.MustCompile(`(?:\b1[ .-])?(?:\([2-9]\d{2}\)\s?|\b[2-9]\d{2}[ .-])\d{3}[ .-]\d{4}\b`)},
	{name: "phone number after keyword", category: CategoryPhone, gate: gate{words: []string{"phone", "mobile", "cell", "tel", "whatsapp", "call", "text", "reach", "number"}, minDigits: 7}, reason: "a phone number", group: 1, isolated: true, valid: phoneAfterKeyword,
		re: regexp.MustCompile(`(?i)\b(?:phone|mobile|cell|tel|telephone|whatsapp|call\s+me|text\s+me|reach\s+me|my\s+number)\b(?:\s+(?:number|no\.?|#))?\s*(?:is|at|on|:)?\s*(?:is\s+|at\s+|on\s+)?(\+?\(?\d[\d ().-]{5,20}\d)`)},
}

// ssnValid applies the SSA's issuing rules: no area 000, 666 or 9xx, no
// group 00, no serial 0000.
func ssnValid(g int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		d := digitsOf(group(text, loc, g))
		if len(d) != 9 {
			return false
		}
		area, grp, serial := d[:3], d[3:5], d[5:]
		return area != "000" && area != "666" && area[0] != '9' && grp != "00" && serial != "0000"
	}
}

// sinValid checks a Canadian Social Insurance Number: nine digits that
// pass Luhn.
func sinValid(text string, loc []int) bool {
	d := digitsOf(group(text, loc, 1))
	return len(d) == 9 && luhnValid(d)
}

// ninoValid applies HMRC's prefix rules: the first letter is not D, F, I,
// Q, U or V, the second not those or O, and BG, GB, KN, NK, NT, TN, ZZ are
// never issued.
func ninoValid(g int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		v := strings.ToUpper(strings.NewReplacer(" ", "", ".", "", "-", "").Replace(group(text, loc, g)))
		if len(v) != 9 {
			return false
		}
		a, b := v[0], v[1]
		if strings.IndexByte("DFIQUV", a) >= 0 || strings.IndexByte("DFIQUVO", b) >= 0 {
			return false
		}
		switch v[:2] {
		case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
			return false
		}
		return true
	}
}

func idNumber(g, minDigits int) func(string, []int) bool {
	return func(text string, loc []int) bool {
		return len(digitsOf(group(text, loc, g))) >= minDigits
	}
}

// cardValid accepts 13–19 digits that pass Luhn, start with a prefix a
// card network issues, at a length it issues, and, when they are grouped,
// come in groups of 3 to 8 digits, whatever the separators: a Slack ts
// (10 digits, a dot, 6) or a compact timestamp is not a card.
func cardValid(text string, loc []int) bool {
	s := group(text, loc, 0)
	groups := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '.' || r == '-' })
	if len(groups) > 1 {
		for _, g := range groups {
			if len(g) < 3 || len(g) > 8 {
				return false
			}
		}
	}
	d := digitsOf(s)
	return cardNetwork(d) && luhnValid(d)
}

// cardNetwork reports whether digits start with an issuer prefix (IIN) of
// a card network and have a length that network issues.
func cardNetwork(d string) bool {
	n := len(d)
	if n < 13 || n > 19 {
		return false
	}
	p := func(k int) int {
		v := 0
		for i := 0; i < k; i++ {
			v = v*10 + int(d[i]-'0')
		}
		return v
	}
	p2, p3, p4 := p(2), p(3), p(4)
	switch {
	case d[0] == '4': // Visa
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return n == 16
	case p2 == 34 || p2 == 37: // American Express
		return n == 15
	case p4 >= 2200 && p4 <= 2204, // Mir
		p4 == 6011 || p2 == 65 || p3 >= 644 && p3 <= 649, // Discover
		p2 == 62,                 // UnionPay
		p4 >= 3528 && p4 <= 3589: // JCB
		return n >= 16
	case p3 >= 300 && p3 <= 305 || p2 == 36 || p2 == 38 || p2 == 39 || p4 == 3095: // Diners Club
		return n >= 14
	case p2 == 50 || p2 >= 56 && p2 <= 58 || p2 == 63 || p2 == 67: // Maestro
		return true
	}
	return false
}

// luhnValid reports whether a string of digits passes the Luhn check.
func luhnValid(digits string) bool {
	if digits == "" {
		return false
	}
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		n := int(c - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// ibanMatch accepts a match that is an IBAN, or starts with one: a word
// after a spaced IBAN ("BE68 5390 0754 7034 from") can read as a group.
func ibanMatch(text string, loc []int) bool {
	s := group(text, loc, 0)
	for {
		if ibanValid(s) {
			return true
		}
		i := strings.LastIndexAny(s, " .-")
		if i < 0 {
			return false
		}
		s = s[:i]
	}
}

// ibanLengths is the IBAN length per country of the SWIFT IBAN registry;
// a country that is not listed is not read as an IBAN.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

// ibanValid reports whether s, in any case and with spaces, dots or dashes
// between its characters, is an IBAN of its country's length whose mod-97
// check (ISO 7064) gives 1.
func ibanValid(s string) bool {
	s = strings.ToUpper(strings.NewReplacer(" ", "", ".", "", "-", "").Replace(s))
	if len(s) < 4 || ibanLengths[s[:2]] != len(s) {
		return false
	}
	rem := 0
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// abaValid checks a US routing number's weighted checksum (3, 7, 1).
func abaValid(text string, loc []int) bool {
	d := group(text, loc, 1)
	if len(d) != 9 {
		return false
	}
	sum := 0
	for i, w := range []int{3, 7, 1, 3, 7, 1, 3, 7, 1} {
		sum += int(d[i]-'0') * w
	}
	return sum%10 == 0 && d != "000000000"
}

var isoDate = regexp.MustCompile(`^\d{4}[-./]\d{2}[-./]\d{2}$`)

// phoneAfterKeyword accepts 7 to 15 digits that are not a date. A plain
// run of digits right after the keyword, with no "is", "at" or colon, must
// look like a phone number (10 digits or more, or a leading 0): "cell
// 1048576" is a spreadsheet cell.
func phoneAfterKeyword(text string, loc []int) bool {
	v := strings.TrimSpace(group(text, loc, 1))
	d := digitsOf(v)
	if len(d) < 7 || len(d) > 15 || isoDate.MatchString(v) {
		return false
	}
	if d != v {
		return true // grouped or with +, ( ): written as a phone number
	}
	before := strings.ToLower(strings.TrimRight(text[loc[0]:loc[2]], " "))
	connected := strings.HasSuffix(before, ":") || strings.HasSuffix(before, " is") || strings.HasSuffix(before, " at") || strings.HasSuffix(before, " on") || strings.HasSuffix(before, "#")
	return connected || len(d) >= 10 || d[0] == '0'
}

// nanpValid checks a North American number's area code and exchange: each
// starts with 2–9 and is not an N11 service code, so "meeting 345 178 9012"
// or "911 555 0100" is not read as a phone number.
func nanpValid(text string, loc []int) bool {
	d := digitsOf(group(text, loc, 0))
	if len(d) == 11 {
		d = d[1:]
	}
	if len(d) != 10 {
		return false
	}
	area, exch := d[:3], d[3:6]
	return area[0] >= '2' && exch[0] >= '2' && area[1:] != "11" && exch[1:] != "11"
}

// numberLabel is a label that names the number after it as something other
// than a person's: a meeting, an order, a part, a ticket, a build.
var numberLabel = regexp.MustCompile(`(?i)\b(?:meeting|zoom|webex|webinar|conference|bridge|dial-in|room|part|sku|order|invoice|ticket|case|ref|reference|tracking|serial|model|item|catalog(?:ue)?|confirmation|booking|reservation|build|version|release|po|purchase\s+order|transaction|txn|request|job|issue|pr|run|batch|shipment|parcel|package|claim|asset|lot|patent|isbn|ean|upc|gtin|row|page|port)(?:\s+(?:id|number|no\.?|num|code|#))?\s*(?:is\s+|:\s*|#\s*|=\s*)?$`)

// labelled reports a number label right before text[s:].
func labelled(text string, s int) bool {
	return numberLabel.MatchString(text[max(0, s-48):s])
}
