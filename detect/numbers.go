package detect

import (
	"regexp"
	"strconv"
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
	// After its name, or before it: "123 45 6789 is my social security".
	{name: "US SSN after keyword", category: CategoryGovernmentID, gate: gate{words: []string{"ssn", "social"}, minDigits: 9}, reason: "a US Social Security number", group: 1, isolated: true, valid: all(ssnName.named, ssnValid(1)),
		re: regexp.MustCompile(`\b(\d{3}` + sep + `\d{2}` + sep + `\d{4})\b`)},
	{name: "Canadian SIN", category: CategoryGovernmentID, gate: gate{words: []string{"sin", "insurance"}, minDigits: 9}, reason: "a Canadian Social Insurance Number", group: 1, isolated: true, valid: all(sinName.named, sinValid),
		re: regexp.MustCompile(`\b(\d{3}` + sep + `\d{3}` + sep + `\d{3})\b`)},
	{name: "UK NI number", category: CategoryGovernmentID, gate: gate{minDigits: 6}, reason: "a UK National Insurance number", valid: ninoValid(0),
		re: regexp.MustCompile(`\b[A-Z]{2} \d{2} \d{2} \d{2} [A-D]\b`)},
	{name: "UK NI number after keyword", category: CategoryGovernmentID, gate: gate{words: []string{"ni", "national"}, minDigits: 6}, reason: "a UK National Insurance number", group: 1, valid: all(ninoName.named, ninoValid(1)),
		re: regexp.MustCompile(`(?i)\b([A-Z]{2}` + sep + `\d{2}` + sep + `\d{2}` + sep + `\d{2}` + sep + `[A-D])\b`)},
	// National ids with a check digit: each is read bare where its format
	// is distinctive (DNI, codice fiscale, a dotted CPF, a spaced NIR) and
	// otherwise only next to its name; one that fails its check is not one.
	{name: "Spanish DNI or NIE", category: CategoryGovernmentID, gate: gate{minDigits: 7, minUpper: 1}, reason: "a Spanish DNI or NIE number", group: 1, isolated: true, unlabelled: true, valid: dniValid,
		re: regexp.MustCompile(`\b((?:[XYZ][ -]?\d{7}|\d{8}|\d{2}\.\d{3}\.\d{3})[ -]?[A-Z])\b`)},
	{name: "Italian codice fiscale", category: CategoryGovernmentID, gate: gate{minUpper: 9, minToken: 16}, reason: "an Italian codice fiscale", group: 1, isolated: true, valid: codiceFiscaleValid,
		re: regexp.MustCompile(`\b([A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z])\b`)},
	{name: "German tax id", category: CategoryGovernmentID, gate: gate{words: []string{"steuer", "idnr", "identifikation", "tax", "tin"}, minDigits: 11}, reason: "a German tax identification number (Steuer-ID)", group: 1, isolated: true, valid: all(steuerName.named, steuerIDValid),
		re: regexp.MustCompile(`\b(\d{2} ?\d{3} ?\d{3} ?\d{3})\b`)},
	{name: "Indian Aadhaar", category: CategoryGovernmentID, gate: gate{words: []string{"aadha", "uid"}, minDigits: 12}, reason: "an Indian Aadhaar number", group: 1, isolated: true, valid: all(aadhaarName.named, aadhaarValid),
		re: regexp.MustCompile(`\b([2-9]\d{3}[ -]?\d{4}[ -]?\d{4})\b`)},
	{name: "French NIR", category: CategoryGovernmentID, gate: gate{minDigits: 13}, reason: "a French social security number (NIR)", group: 1, isolated: true, valid: nirValid,
		re: regexp.MustCompile(`\b([1-478][ .]?\d{2}[ .]?\d{2}[ .]?(?:\d{2}|2[ABab])[ .]?\d{3}[ .]?\d{3}[ .]?\d{2})\b`)},
	{name: "Dutch BSN", category: CategoryGovernmentID, gate: gate{words: []string{"bsn", "burgerservice", "sofi"}, minDigits: 8}, reason: "a Dutch citizen service number (BSN)", group: 1, isolated: true, valid: all(bsnName.named, bsnValid),
		re: regexp.MustCompile(`\b(\d{4}[ .]?\d{2}[ .]?\d{3}|\d{3}[ .]?\d{3}[ .]?\d{3}|\d{8})\b`)},
	{name: "Brazilian CPF", category: CategoryGovernmentID, gate: gate{minDigits: 11, minToken: 11}, reason: "a Brazilian CPF number", group: 1, isolated: true, valid: cpfValid,
		re: regexp.MustCompile(`\b(\d{3}\.?\d{3}\.?\d{3}-?\d{2})\b`)},
	{name: "passport number", category: CategoryGovernmentID, gate: gate{words: []string{"passport"}, minDigits: 2}, reason: "a passport number", group: 1, valid: idNumber(1, 2),
		re: regexp.MustCompile(`(?i)\bpassport` + idTail + `([A-Z0-9]{6,9})\b`)},
	{name: "identity document number", category: CategoryGovernmentID, gate: gate{words: []string{"licen", "national", "card", "tax", "social", "personnummer"}, minDigits: 4}, reason: "an identity document number", group: 1, valid: idNumber(1, 4),
		re: regexp.MustCompile(`(?i)\b(?:driver['’]?s? licen[cs]e|driving licen[cs]e|national (?:id|identity)(?: card)?|id card|tax (?:id|identification)|social insurance|personnummer)` + idTail + `([A-Z0-9][A-Z0-9-]{4,18}[A-Z0-9])\b`)},

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
		v := strings.ToUpper(numberSeparators.Replace(group(text, loc, g)))
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
	s = strings.ToUpper(numberSeparators.Replace(s))
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

var (
	// numberSeparators are what people put between an id's groups.
	numberSeparators = strings.NewReplacer(" ", "", ".", "", "-", "")
	// corsica reads Corsica's departments 2A and 2B as the NIR key does.
	corsica = strings.NewReplacer("2A", "19", "2B", "18")
)

// idName is how an id is named beside it: before it, with its label's
// tail ("my SSN is 123 45 6789"), or after it ("123 45 6789 is my SSN").
type idName struct{ before, after *regexp.Regexp }

// nameOf compiles an idName: before matches the text that ends right
// before the id, after the name in "… is my NAME".
func nameOf(before, after string) idName {
	return idName{
		before: regexp.MustCompile(`(?:` + before + `)$`),
		after:  regexp.MustCompile(`^\s+(?i:is|was|=|are)\s+(?i:my|his|her|their|the|our|your)\s+(?:` + after + `)\b`),
	}
}

// named accepts an id in group 1 with its name right before or after it.
func (n idName) named(text string, loc []int) bool {
	s, e := loc[2], loc[3]
	return n.before.MatchString(text[max(0, s-64):s]) || n.after.MatchString(text[e:min(len(text), e+64)])
}

var (
	ssnName     = nameOf(`(?i)\b(?:ssn|social(?:\s+security)?(?:\s+(?:number|no\.?|#))?)\b\D{0,15}`, `(?i:ssn|social(?:\s+security)?)`)
	sinName     = nameOf(`(?:\bSIN\b|(?i:\bsin\s+(?:number|no\.?|#)|\bsocial\s+insurance(?:\s+(?:number|no\.?|#))?))`+idTail, `(?:SIN|(?i:social\s+insurance))`)
	ninoName    = nameOf(`(?i)\b(?:ni|nino|national insurance)`+idTail, `(?i:ni|nino|national\s+insurance)`)
	steuerName  = nameOf(`(?i)\b(?:steuer[- ]?id(?:entifikationsnummer)?|steuerliche\s+identifikationsnummer|identifikationsnummer|idnr|tax\s+id|tin)`+idTail, `(?i:steuer[- ]?id|tax\s+id|idnr)`)
	aadhaarName = nameOf(`(?i)\b(?:aadhaar|aadhar|uidai|uid)(?:\s+card)?`+idTail, `(?i:aadhaa?r|uid)`)
	nirName     = nameOf(`(?i)\b(?:nir|insee|num[ée]ro\s+de\s+s[ée]cu(?:rit[ée]\s+sociale)?|s[ée]curit[ée]\s+sociale|carte\s+vitale|social\s+security)`+idTail, `(?i:nir|num[ée]ro\s+de\s+s[ée]cu|s[ée]curit[ée]\s+sociale|social\s+security)`)
	bsnName     = nameOf(`(?i)\b(?:bsn|burgerservicenummer|sofi(?:-?nummer)?)`+idTail, `(?i:bsn|burgerservicenummer)`)
	cpfName     = nameOf(`(?i)\bcpf`+idTail, `(?i:cpf)`)
)

// dniValid checks a Spanish DNI (eight digits) or NIE (X, Y or Z and seven
// digits) by its letter, the number mod 23.
func dniValid(text string, loc []int) bool {
	v := numberSeparators.Replace(group(text, loc, 1))
	if len(v) != 9 {
		return false
	}
	if i := strings.IndexByte("XYZ", v[0]); i >= 0 {
		v = string(rune('0'+i)) + v[1:]
	}
	n, err := strconv.Atoi(v[:8])
	return err == nil && "TRWAGMYFPDXBNJZSQVHLCKE"[n%23] == v[8]
}

// codiceFiscaleValid checks an Italian codice fiscale's last letter: odd
// positions by the decree's table, even ones by their value, mod 26.
func codiceFiscaleValid(text string, loc []int) bool {
	v := group(text, loc, 1)
	odd := [36]int{1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23}
	value := func(c byte) int {
		if c >= '0' && c <= '9' {
			return int(c - '0')
		}
		return int(c - 'A')
	}
	sum := 0
	for i := 0; i < 15; i++ {
		if i%2 == 0 {
			sum += odd[value(v[i])]
		} else {
			sum += value(v[i])
		}
	}
	return v[15] == byte('A'+sum%26)
}

// steuerIDValid checks a German Steuer-ID: eleven digits, no leading zero;
// in the first ten exactly one digit repeats, at most three times and
// never three in a row; the last is the ISO 7064 MOD 11,10 check digit.
func steuerIDValid(text string, loc []int) bool {
	d := digitsOf(group(text, loc, 1))
	if len(d) != 11 || d[0] == '0' {
		return false
	}
	var counts [10]int
	for i := 0; i < 10; i++ {
		counts[d[i]-'0']++
		if i >= 2 && d[i] == d[i-1] && d[i] == d[i-2] {
			return false
		}
	}
	repeated := 0
	for _, c := range counts {
		if c > 3 {
			return false
		}
		if c >= 2 {
			repeated++
		}
	}
	if repeated != 1 {
		return false
	}
	product := 10
	for i := 0; i < 10; i++ {
		sum := (int(d[i]-'0') + product) % 10
		if sum == 0 {
			sum = 10
		}
		product = sum * 2 % 11
	}
	check := 11 - product
	if check == 10 {
		check = 0
	}
	return check == int(d[10]-'0')
}

// aadhaarValid checks an Aadhaar number's Verhoeff check digit.
func aadhaarValid(text string, loc []int) bool {
	d := digitsOf(group(text, loc, 1))
	return len(d) == 12 && verhoeffValid(d)
}

var (
	verhoeffD = [10][10]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5}, {2, 3, 4, 0, 1, 7, 8, 9, 5, 6},
		{3, 4, 0, 1, 2, 8, 9, 5, 6, 7}, {4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1}, {6, 5, 9, 8, 7, 1, 0, 4, 3, 2},
		{7, 6, 5, 9, 8, 2, 1, 0, 4, 3}, {8, 7, 6, 5, 9, 3, 2, 1, 0, 4}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}}
	verhoeffP = [8][10]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4}, {5, 8, 0, 3, 7, 9, 6, 1, 4, 2},
		{8, 9, 1, 6, 0, 4, 3, 5, 2, 7}, {9, 4, 5, 3, 1, 2, 8, 7, 6, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1}, {2, 7, 9, 3, 8, 0, 6, 4, 1, 5},
		{7, 0, 4, 6, 9, 1, 3, 2, 5, 8}}
)

// verhoeffValid reports whether digits pass the Verhoeff check.
func verhoeffValid(digits string) bool {
	c := 0
	for i := 0; i < len(digits); i++ {
		c = verhoeffD[c][verhoeffP[i%8][digits[len(digits)-1-i]-'0']]
	}
	return c == 0
}

// nirValid checks a French NIR: its month, and its key, 97 minus the first
// thirteen characters mod 97 (Corsica's 2A and 2B count as 19 and 18). A
// bare one must be grouped as it is printed ("1 84 12 76 451 089 46") and
// start with 1 or 2; run together, it needs its name.
func nirValid(text string, loc []int) bool {
	raw := group(text, loc, 1)
	v := strings.ToUpper(numberSeparators.Replace(raw))
	if len(v) != 15 {
		return false
	}
	if !nirName.named(text, loc) && (!strings.Contains(raw, " ") || (v[0] != '1' && v[0] != '2')) {
		return false
	}
	if month, _ := strconv.Atoi(v[3:5]); month < 1 || month > 12 && month < 20 {
		return false
	}
	body := corsica.Replace(v[:13])
	n, err1 := strconv.ParseUint(body, 10, 64)
	key, err2 := strconv.Atoi(v[13:])
	return err1 == nil && err2 == nil && key == 97-int(n%97)
}

// bsnValid checks a Dutch BSN by the eleven test: 9×d1 + 8×d2 + … + 2×d8
// − d9 is a multiple of 11, and not zero. Eight digits have a leading zero.
func bsnValid(text string, loc []int) bool {
	d := digitsOf(group(text, loc, 1))
	if len(d) == 8 {
		d = "0" + d
	}
	if len(d) != 9 {
		return false
	}
	sum := 0
	for i := 0; i < 8; i++ {
		sum += int(d[i]-'0') * (9 - i)
	}
	sum -= int(d[8] - '0')
	return sum != 0 && sum%11 == 0
}

// cpfValid checks a Brazilian CPF's two mod-11 check digits; one of a
// single repeated digit is a placeholder. A bare one must be written as
// 000.000.000-00; run together, it needs its name.
func cpfValid(text string, loc []int) bool {
	raw := group(text, loc, 1)
	d := digitsOf(raw)
	if len(d) != 11 || strings.Count(d, d[:1]) == 11 {
		return false
	}
	if !cpfName.named(text, loc) && (strings.Count(raw, ".") != 2 || !strings.Contains(raw, "-")) {
		return false
	}
	check := func(n int) byte {
		sum := 0
		for i := 0; i < n; i++ {
			sum += int(d[i]-'0') * (n + 1 - i)
		}
		return byte('0' + sum*10%11%10)
	}
	return check(9) == d[9] && check(10) == d[10]
}
