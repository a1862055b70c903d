package detect

import (
	"regexp"
	"slices"
	"strings"
)

// The personal categories are read by meaning, not grammar: a rule is a
// predicate that only a person is the subject of ("takes antidepressants",
// "is a registered Democrat", "attends mosque", "earns $140k a year"), or a
// term owned by one ("her chemo"), or a reason a person gives ("for
// chemotherapy", "during Ramadan"). Who says it does not matter: "I take",
// "she takes", "Alice takes", "The user takes" and the canonical "Takes"
// are one fact, and so are "Is Black" and "is black", "has MS" and "has
// ms": case is read only to tell a term from a name or another word
// ("Roma", "Mass", "Unite"). What keeps work talk out is the term's use:
// a term that names a product, a team or a dataset ("the diabetes-risk
// dashboard", "on the medication reminder feature", "for the cancer
// registry") is followed by the thing it modifies, and plainTerm drops it.

// Term lists. Words in a phrase are separated by one space, which matches
// any run of spaces; a hyphen matches a hyphen or a space; an apostrophe
// may be straight, curly or left out. Every word of a phrase becomes a gate
// term, so a rule's regexp only runs on a text that holds one.
var (
	conditions = []string{
		"adhd", "autism", "asperger's", "asperger's syndrome", "diabetes", "depression", "anxiety", "anxiety disorder",
		"panic disorder", "panic attacks", "panic attack", "bipolar", "bipolar disorder", "ptsd", "c-ptsd", "ocd", "cancer",
		"leukemia", "leukaemia", "lymphoma", "melanoma", "tumor", "tumour", "hiv", "aids", "epilepsy", "seizures",
		"seizure disorder", "asthma", "migraine", "migraines", "dyslexia", "dyspraxia", "dyscalculia", "schizophrenia",
		"psychosis", "eating disorder", "anorexia", "bulimia", "insomnia", "sleep apnea", "sleep apnoea", "narcolepsy",
		"long covid", "covid", "multiple sclerosis", "crohn's", "crohn's disease", "colitis", "ulcerative colitis", "ibs",
		"celiac", "coeliac", "celiac disease", "coeliac disease", "arthritis", "lupus", "fibromyalgia", "endometriosis",
		"pcos", "hypertension", "high blood pressure", "heart condition", "heart disease", "heart attack", "heart failure",
		"stroke", "disability", "disabilities", "learning disability", "chronic pain", "back pain", "joint pain",
		"chronic illness", "chronic fatigue", "chronic fatigue syndrome", "hearing loss", "tinnitus", "burnout", "burn-out",
		"addiction", "alcoholism", "alcohol addiction", "drug addiction", "substance abuse", "gambling addiction",
		"stutter", "stammer", "dementia", "alzheimer's", "parkinson's", "thyroid condition", "hypothyroidism",
		"hyperthyroidism", "psoriasis", "allergies", "peanut allergy", "nut allergy", "food allergies", "gluten intolerance",
		"lactose intolerance", "hepatitis", "tuberculosis", "kidney disease", "liver disease", "kidney failure",
		"miscarriage", "abortion", "infertility", "mental illness", "mental health issues", "mental health condition",
		"mental health problems", "health issues", "health problems", "medical condition", "chronic condition",
		"terminal illness", "surgery", "transplant", "nervous breakdown", "suicidal thoughts", "self-harm", "concussion",
		"pregnancy", "autism diagnosis", "adhd diagnosis", "cancer diagnosis", "miscarriages", "strokes", "heart attacks",
		"allergy", "ulcers", "tumours", "tumors", "hernia", "concussions", "surgeries", "anaemia", "anemia", "menopause",
		"perimenopause", "glaucoma", "cataracts", "scoliosis", "osteoporosis", "gout", "shingles", "sciatica", "vertigo",
		"eczema", "acne", "herpes", "chlamydia", "syphilis", "gonorrhea", "gonorrhoea", "sti", "stis",
		"asd", "sight loss", "vision loss", "low vision", "sickle cell", "sickle cell disease", "sickle cell anaemia",
		"sickle cell anemia", "ehlers-danlos", "ehlers-danlos syndrome", "tourette's", "tourette syndrome",
		"cystic fibrosis", "huntington's", "huntington's disease", "haemophilia", "hemophilia", "muscular dystrophy",
		"motor neurone disease", "motor neuron disease",
	}
	medications = []string{
		"antidepressants", "antidepressant", "anti-depressants", "insulin", "medication", "medications", "meds", "ssris",
		"ssri", "snris", "adderall", "ritalin", "concerta", "vyvanse", "elvanse", "methylphenidate", "prozac", "zoloft",
		"lexapro", "sertraline", "fluoxetine", "citalopram", "escitalopram", "venlafaxine", "bupropion", "wellbutrin",
		"mirtazapine", "lithium", "methadone", "buprenorphine", "suboxone", "metformin", "ozempic", "wegovy", "xanax",
		"valium", "diazepam", "lorazepam", "benzodiazepines", "benzos", "antipsychotics", "mood stabilisers",
		"mood stabilizers", "beta blockers", "beta-blockers", "blood thinners", "statins", "opioids", "painkillers",
		"sleeping pills", "sleep medication", "anti-anxiety medication", "chemo", "chemotherapy", "hormone therapy",
		"hormone replacement therapy", "hrt", "testosterone", "oestrogen", "estrogen", "birth control", "inhaler",
		"epipen", "steroids", "immunosuppressants", "antiretrovirals", "dialysis", "levothyroxine", "insulin injections",
		"blood pressure medication", "thyroid medication", "hearing aids", "hearing aid", "cochlear implant",
		"prosthetic", "prosthesis", "insulin pump", "cpap", "cpap machine", "glucose monitor", "wheelchair",
		"walking stick", "crutches", "guide dog", "hearing dog", "assistance dog", "service dog", "mobility scooter",
		"white cane", "walking frame", "ostomy bag", "colostomy bag", "catheter", "feeding tube", "blue badge",
	}
	care = []string{
		"therapy", "therapist", "psychiatrist", "psychologist", "psychotherapist", "psychotherapy", "counselling",
		"counseling", "counsellor", "counselor", "cbt", "emdr", "oncologist", "cardiologist", "neurologist",
		"endocrinologist", "rheumatologist", "gastroenterologist", "psychiatric care", "chemo", "chemotherapy",
		"radiotherapy", "radiation therapy", "radiation treatment", "dialysis", "physiotherapy", "physio",
		"physical therapy", "rehab", "detox", "aa", "aa meetings", "na meetings", "alcoholics anonymous",
		"narcotics anonymous", "ivf", "fertility treatment", "fertility clinic", "infusions", "infectious disease doctor",
		"infectious disease doc", "hormone therapy", "speech therapy", "occupational therapy", "couples therapy",
		"grief counselling", "cancer treatment", "immunotherapy", "hydrotherapy", "speech and language therapy",
		"group therapy", "talk therapy", "art therapy", "hypnotherapy", "acupuncture", "cardiac rehab", "allergy shots",
	}
	// healthStates follow "is", "am", "are": "is diabetic", "is on sick leave".
	healthStates = []string{
		"diabetic", "epileptic", "autistic", "asthmatic", "dyslexic", "dyspraxic", "anorexic", "bulimic", "bipolar",
		"pregnant", "sober", "deaf", "hard of hearing", "blind", "partially sighted", "visually impaired", "hearing impaired",
		"immunocompromised", "immunosuppressed", "neurodivergent", "colorblind", "colourblind", "color blind",
		"colour blind", "lactose intolerant", "gluten intolerant", "an alcoholic", "alcoholic",
		"a recovering alcoholic", "a recovering addict", "in recovery", "in remission", "in rehab", "in therapy",
		"on the autism spectrum", "on the spectrum", "on medical leave", "on sick leave", "on disability leave",
		"on stress leave", "on long-term sick leave", "off sick", "expecting a baby", "expecting twins",
		"a cancer survivor", "a wheelchair user", "in a wheelchair", "registered disabled", "registered blind",
		"paralysed", "paralyzed", "an amputee", "amputee", "wheelchair-bound", "housebound", "bedbound", "non-verbal",
		"sectioned", "in a psychiatric ward", "in a psych ward", "in psychiatric care", "depressed", "suicidal", "chronically ill",
		"terminally ill", "mentally ill", "seriously ill", "in hospital", "hospitalised", "hospitalized", "hiv-positive",
	}
	allergens = []string{
		"penicillin", "peanuts", "peanut", "nuts", "tree nuts", "shellfish", "gluten", "latex", "bees", "bee stings",
		"wasps", "dairy", "lactose", "eggs", "soy", "sesame", "fish", "aspirin", "ibuprofen", "sulfa", "cats", "dogs",
		"pollen", "antibiotics", "codeine", "morphine",
	}
	// healthNouns are what a person's health is spoken of with: "her
	// medical leave", "because of his blood sugar".
	healthNouns = []string{
		"medical leave", "sick leave", "disability leave", "medical history", "health condition", "mental health",
		"blood sugar", "blood pressure", "illness", "prescription", "hospital stay", "symptoms", "doctor's appointment",
		"doctor's appointments", "medical appointment", "medical appointments", "hospital appointments",
		"sobriety", "recovery from alcoholism", "diagnosis of", "reasonable adjustments", "reasonable adjustment",
		"disability accommodations", "suicide attempt",
	}

	sexualIdentities = []string{
		"gay", "lesbian", "bisexual", "bi", "queer", "asexual", "aromantic", "pansexual", "pan", "homosexual", "trans",
		"transgender", "transsexual", "non-binary", "nonbinary", "enby", "genderqueer", "genderfluid", "gender-fluid",
		"gender non-conforming", "intersex", "two-spirit", "a trans woman", "a trans man", "trans woman", "trans man",
		"lgbt", "lgbtq", "a gay man", "a lesbian", "a bisexual",
	}

	religiousIdentities = []string{
		"christian", "muslim", "jewish", "jew", "hindu", "buddhist", "sikh", "catholic", "roman catholic", "protestant",
		"mormon", "atheist", "agnostic", "evangelical", "quaker", "baptist", "methodist", "anglican", "lutheran",
		"presbyterian", "pentecostal", "jain", "bahai", "baha'i", "pagan", "wiccan", "rastafarian", "jehovah's witness",
		"religious", "shia", "sunni", "person of faith", "lds", "latter-day saint", "amish", "mennonite", "hare krishna",
		"scientologist", "zoroastrian", "parsi", "taoist", "unitarian", "adventist", "seventh-day adventist", "coptic",
		"orthodox christian", "greek orthodox", "russian orthodox", "episcopalian", "orthodox jew", "hasidic", "druze",
		"alevi", "ismaili", "ahmadi", "born-again christian", "churchgoer", "church-goer", "regular churchgoer",
	}
	worship = []string{
		"church", "mosque", "masjid", "synagogue", "shul", "temple", "gurdwara", "mandir", "chapel", "mass",
		"church services", "religious services", "sunday service", "friday prayers", "prayers", "jummah", "jumuah",
		"bible study", "bible class", "torah study", "sunday school", "hebrew school", "quran classes", "confession",
		"worship", "evensong", "kingdom hall",
	}
	observances = []string{
		"sabbath", "shabbat", "shabbos", "ramadan", "lent", "yom kippur", "passover", "pesach", "rosh hashanah", "eid",
		"diwali", "navratri", "vaisakhi", "hanukkah", "chanukah", "sukkot", "kosher", "halal", "high holidays",
		"high holy days", "iftar", "suhoor", "religious fast", "orthodox easter", "hajj", "umrah", "rosary",
		"holy communion", "communion", "bar mitzvah", "bat mitzvah", "vesak", "purim", "shavuot", "eid al-adha", "eid al-fitr",
	}
	religiousNouns = []string{
		"religious reasons", "religious holidays", "religious holiday", "religious beliefs", "religious views",
		"religious observance", "religion", "prayer", "prayers", "prayer times", "daily prayers",
		"friday prayers", "church", "sunday mass", "midnight mass", "mosque", "synagogue", "temple", "gurdwara",
	}
	// ownWorship are the worship and observances a person's "my" or
	// "her" may own; a mass, a lent, a temple and a confession may be
	// something else's ("the object's mass", "my confession: …"), and
	// halal and kosher describe a thing ("my halal options").
	ownWorship = slices.DeleteFunc(slices.Concat(worship, observances), func(p string) bool {
		return p == "mass" || p == "lent" || p == "temple" || p == "confession" || p == "halal" || p == "kosher"
	})

	politicalIdentities = []string{
		"democrat", "republican", "socialist", "democratic socialist", "social democrat", "liberal democrat", "lib dem",
		"communist", "libertarian", "tory", "marxist", "anarchist", "trotskyist", "maoist", "leninist", "fascist",
		"neo-nazi", "white nationalist", "monarchist", "left-wing", "right-wing", "far-left", "far-right", "trump supporter",
		"maga", "green party member", "labour party member", "labour member", "tory member", "party member",
	}
	// parties are party names that follow "votes", "member of", "supports".
	parties = []string{
		"democrats", "democrat", "republicans", "republican", "gop", "tories", "tory", "labour", "labor", "conservatives",
		"lib dems", "liberal democrats", "greens", "green party", "snp", "plaid cymru", "ukip", "reform uk", "dup",
		"sinn fein", "sinn féin", "afd", "cdu", "csu", "spd", "fdp", "die linke", "ndp", "bloc québécois", "psoe",
		"podemos", "vox", "sumar", "rassemblement national", "la france insoumise", "les républicains", "lega",
		"fratelli d'italia", "forza italia", "bjp", "aap", "anc", "pvv", "vvd", "libertarians", "socialists",
		"communists", "socialist party", "communist party", "labour party", "conservative party", "democratic party",
		"republican party", "libertarian party", "liberal party", "green party",
	}
	// partyAdjectives name a side before "candidate", "voter", "campaign".
	partyAdjectives = []string{
		"labour", "labor", "conservative", "tory", "green", "liberal", "liberal democrat", "democratic", "democrat",
		"republican", "socialist", "communist", "libertarian", "gop", "snp", "ukip", "reform", "maga",
	}
	// politicians name a side by its leader: "the Trump campaign".
	politicians = []string{
		"trump", "biden", "harris", "obama", "sanders", "bernie", "desantis", "corbyn", "starmer", "sunak", "farage",
		"le pen", "macron", "mélenchon", "modi", "bolsonaro", "lula", "meloni", "orbán", "orban", "putin", "erdogan",
	}
	// leaders are politicians' names that are not also common surnames,
	// read after "votes" and "supports".
	leaders        = slices.DeleteFunc(slices.Clone(politicians), func(p string) bool { return p == "harris" || p == "sanders" })
	politicalRoles = []string{
		"candidate", "campaign", "councillor", "councilor", "mp", "senator", "politician", "poll watcher", "voter",
		"voters", "supporter", "activist", "donor", "delegate", "caucus", "precinct captain", "party member",
	}
	politicalNouns = []string{
		"political views", "political beliefs", "political leanings", "political affiliation", "political opinions",
		"political party", "party membership", "politics",
	}

	unionTerms = []string{
		"union member", "union membership", "union rep", "union representative", "union steward", "union dues",
		"union meeting", "union meetings", "union organizer", "union organiser", "union activist", "union card",
		"shop steward", "trade unionist", "trade union member", "trade union rep", "trade union activist",
	}

	// ethnicIdentities are racial and ethnic origins, read as what a
	// person is ("is mixed race", "Black British"); origins that are also
	// a colour are ethnicColours, and those that are also a name or a
	// common noun are ethnicCapitals.
	ethnicIdentities = []string{
		"mixed race", "mixed heritage", "mixed ethnicity", "biracial", "multiracial", "person of colour",
		"person of color", "woman of colour", "woman of color", "man of colour", "man of color", "bame", "bipoc",
		"latino", "latina", "latinx", "latine", "hispanic", "chicano", "chicana", "romani", "romany", "gypsy",
		"irish traveller", "indigenous", "aboriginal", "torres strait islander", "first nations", "native american",
		"alaska native", "native hawaiian", "pacific islander", "inuit", "métis", "sami", "sámi", "maori", "māori",
		"kurdish", "kurd", "berber", "amazigh", "uyghur", "hmong", "pashtun", "hazara", "tamil", "sinhalese", "yoruba",
		"igbo", "hausa", "zulu", "xhosa", "afro-caribbean", "african american", "african-american", "black british",
		"black african", "black caribbean", "black american", "british asian", "british indian", "british pakistani",
		"british bangladeshi", "british chinese", "south asian", "east asian", "southeast asian", "asian-american",
		"asian", "arab", "arab-american", "ashkenazi", "sephardic", "sephardi", "mizrahi", "white british",
		"white irish", "han chinese", "dalit", "adivasi", "an ethnic minority", "ethnic minority",
		"mixed-race", "mixed-heritage",
	}

	financialTroubles = []string{
		"debt", "debts", "debt repayments", "money troubles", "money problems", "financial hardship",
		"financial difficulties", "financial trouble", "financial problems", "financial reasons", "bankruptcy",
		"student loans", "student loan", "payday loan", "payday loans", "medical bills", "credit card debt",
		"rent arrears", "arrears", "gambling debts", "a second job",
	}
	debts = []string{
		"debt", "debts", "student loans", "student loan", "student debt", "credit card debt", "mortgage",
		"payday loan", "payday loans", "overdraft", "arrears", "medical bills", "gambling debts", "loans",
		"a mortgage in arrears",
	}
)

// Shared sub-patterns. Apostrophes may be straight or curly.
const (
	// be is a form of "to be" in any grammatical person.
	be    = `(?:is|am|are|was|were|be|been|being|i['’]m|['’]re|['’]s|isn['’]t)`
	money = `(?:about\s+|around\s+|roughly\s+|over\s+|under\s+|almost\s+|nearly\s+|~\s*)?[$€£₹¥]?\s?\d[\d,.]*(?:\s*(?:k|m|bn|thousand|million|grand|lakhs?|crores?|usd|eur|gbp|chf|cad|aud|inr|dollars?|euros?|pounds?|rupees?|yen)\b)?`
	// healthMods come between a verb and a condition: "has type 2
	// diabetes", "suffers from severe chronic back pain".
	healthMods = `(?:a|an|some|mild|moderate|severe|chronic|clinical|major|acute|early|late|stage\s+[0-4iv]+|type\s+[12]|type\s+(?:one|two)|generali[sz]ed|social|seasonal|post-?natal|post-?partum|bad|serious|long-?term|lifelong|diagnosed|undiagnosed|high-?functioning|recurring|frequent|occasional|breast|lung|skin|prostate|bowel|colon|brain|ovarian|testicular|pancreatic|blood|bone|childhood|adult|borderline|gestational|terminal|advanced|metastatic|knee|hip|back|heart|eye|shoulder|spinal|spine|foot|ankle|wrist|neck|dental|gastric|bypass|kidney|liver|minor|emergency|weekly|daily|regular|ongoing|hormone|recent|difficult|complicated|high-risk|rough|hard|really|very|quite|pretty|terrible|awful|horrible|constant|persistent|painful|crippling|debilitating|cluster|vestibular|tension|repeated|recurrent|two|three|four|several|multiple|many|\d+|his|her|their|my)`
	// healthStateMods come between a verb and a health state: "is
	// severely dyslexic", "is type 1 diabetic".
	healthStateMods = `a|an|now|also|still|recently|newly|currently|mildly|severely|clinically|profoundly|partially|legally|totally|very|quite|approved|paid|unpaid|extended|long-?term|temporarily|type\s+(?:[12]|one|two|i{1,2})`
	religionMods    = `a|an|evangelical|devout|devoutly|practi[cs]ing|observant|orthodox|strict|strictly|lapsed|non-practi[cs]ing|born-again|very|deeply|quite|also|proud|proudly|committed|reform|conservative|roman|shia|sunni`
	politicsMods    = `a|an|registered|lifelong|life-long|card-carrying|committed|staunch|proud|paid-up|active|longtime|long-time|die-hard|diehard|self-described|hardcore|devoted|strongly|firmly|very|quite|politically`
	// clauseStart opens a sentence or a clause that has no verb before a
	// state or an identity: the start of the text, a sentence's or a
	// clause's punctuation, an appositive's comma or dash ("Alice,
	// pregnant with twins, is out", "Practising Muslim since 2010"). It is
	// the only capturing group of a rule that holds it, which headTerm
	// reads.
	clauseStart = `(^|[,.;:!?(\n]|\s[-–—])\s*`
	// timeIsFor is a time of the week said to be given to something:
	// "Tuesday mornings are therapy", "Sundays are for church".
	timeIsFor = `(?:days|mornings|afternoons|evenings|nights|lunchtimes|weekends|(?:mon|tues|wednes|thurs|fri|satur|sun)days)\s+(?:are|is)(?:\s+(?:for|reserved\s+for|kept\s+(?:free\s+)?for|blocked\s+(?:off\s+)?for))?`
	// possessive is "my", "his", "her", "their", or a name's "'s".
	possessive = `(?:\b(?:my|his|her|their)|['’]s)`
	// ethnicColours are origins that are also a colour, read in any case:
	// colourOfAPerson reads whether a person is the colour ("is black",
	// "a black woman") or a thing is ("the theme is black").
	ethnicColours = `(?:black|white|brown)`
	// ethnicCapitals are origins that are also a name or a common noun.
	// Roma is read in any case, where a rule's structure says it is what
	// a person is ("is roma", "a roma woman"; alone it is Rome's or its
	// club's, see nameLike); a "traveller" who travels is read in capitals
	// only, or in an origin's frame ("irish traveller", "from a traveller
	// family").
	ethnicCapitals = `(?:roma|(?-i:Traveller|Gypsy\s+Traveller))`
)

// phrases turns term lists into one alternation, longest first.
func phrases(lists ...[]string) string {
	var all []string
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortFunc(all, func(a, b string) int { return len(b) - len(a) })
	all = slices.Compact(all)
	parts := make([]string, len(all))
	for i, p := range all {
		var b strings.Builder
		for j, w := range strings.Split(p, " ") {
			if j > 0 {
				b.WriteString(`\s+`)
			}
			w = regexp.QuoteMeta(w)
			w = strings.ReplaceAll(w, `'`, `['’]?`)
			w = strings.ReplaceAll(w, `\-`, `[-\s]`)
			w = strings.ReplaceAll(w, `-`, `[-\s]`)
			b.WriteString(w)
		}
		parts[i] = b.String()
	}
	return `(?:` + strings.Join(parts, `|`) + `)`
}

// terms lists the gate terms of extra words and of phrase lists. Every
// word of a phrase is in each of its matches, so a phrase needs one: its
// longest word that is not a common one ("services" in "church
// services" would open the gate on every Slack webhook). wordBits reads a
// word as its runs of ASCII letters, so a word with an apostrophe gives
// both its runs and their join ("crohn", "crohns"), and one with other
// runes its longest run ("lenchon" in "mélenchon").
func terms(extra []string, lists ...[]string) []string {
	var out []string
	add := func(w string) {
		if w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for _, w := range extra {
		add(w)
	}
	for _, l := range lists {
		for _, p := range l {
			var best string
			score := func(w string) int {
				n := len(longestRun(w))
				if commonWords[w] {
					n -= 100
				}
				return n
			}
			for _, w := range strings.FieldsFunc(strings.ToLower(p), func(r rune) bool { return r == ' ' || r == '-' }) {
				if strings.ContainsAny(w, "0123456789") {
					panic("detect: a term word with a digit is never a whole word to wordBits: " + p)
				}
				if best == "" || score(w) > score(best) {
					best = w
				}
			}
			if i := strings.IndexAny(best, "'’"); i >= 0 {
				add(longestRun(best[:i]))
				best = strings.NewReplacer("'", "", "’", "").Replace(best)
			}
			add(longestRun(best))
		}
	}
	return out
}

// commonWords are words of term phrases that ordinary work talk is full
// of; terms picks another word of the phrase where it can.
var commonWords = wordSet(`services service meeting meetings card team member record issues problems condition disease
	disorder leave attack pain loss treatment blood high heart reasons holidays beliefs views room study class school
	credit student health mental chronic status hall`)

// longestRun is a word's longest run of ASCII letters.
func longestRun(w string) string {
	var best string
	for _, r := range strings.FieldsFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) {
		if len(r) > len(best) {
			best = r
		}
	}
	return best
}

// personalDetectors find statements in GDPR's special categories and their
// neighbours: health, finances, legal matters, sexuality, religion,
// politics, union membership and racial or ethnic origin.
var personalDetectors = []detector{
	// Health.
	// A condition after another ("has ASD and ADHD", "has hypermobility
	// and ADHD") is the person's too: one word and "and" may come first.
	{name: "health condition", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, notOperationOnAThing),
		gate: gate{terms: terms(nil, conditions)},
		re: regexp.MustCompile(`(?i)\b(?:has|have|had|having|got|gets|suffers?\s+from|suffered\s+from|suffering\s+from|lives?\s+with|living\s+with|struggles?\s+with|struggling\s+with|deals?\s+with|dealing\s+with|copes?\s+with|coping\s+with|battles?|battling|fighting|recovering\s+from|recovered\s+from|recovery\s+from|treated\s+for|treatment\s+for|diagnosed\s+with|diagnosis\s+of|history\s+of|manag(?:es|ed|ing)|in\s+remission\s+from|survivor\s+of|survived|disclosed|reported|shared|revealed|(?:signed\s+)?off\s+(?:work\s+|sick\s+)?with|home\s+with|in\s+(?:hospital|bed)\s+with)\s+` +
			`(?:[\w'’-]+\s+(?:and|&)\s+)?(?:(?:been\s+)?(?:diagnosed\s+with\s+)?)?(?:` + healthMods + `\s+){0,3}` + phrases(conditions) + `\b`)},
	{name: "health state", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, headTerm(healthStates)),
		gate: gate{terms: terms(nil, healthStates, allergens)},
		re: clauseRule(`(?i)(?:\b` + be + `|\bbecame|\bbecomes?|\bdiagnosed\s+as|\bstill|\bnow|\bwhile|\bwhen)\s+(?:(?:` + healthStateMods + `)\s+){0,3}(?:` + phrases(healthStates) + `|allergic\s+to\s+` + phrases(allergens) + `)\b` +
			`|` + clauseStart + `(?:(?:` + healthStateMods + `|recovering|former|heavily|insulin-?dependent)\s+){0,3}(?:` + phrases(healthStates) + `|allergic\s+to\s+` + phrases(allergens) + `)\b`)},
	// A dose may come before the name ("takes 20mg of citalopram"); an aid
	// is worn ("wears hearing aids"). PrEP is read in its own capitals.
	{name: "medication", category: CategoryHealth, reason: healthReason, valid: plainTerm,
		gate: gate{terms: terms([]string{"prep"}, medications)},
		re:   regexp.MustCompile(`(?i)\b(?:takes?|took|taking|on|started|starts|starting|stopped|stopping|needs?|needing|injects?|injecting|uses?|using|wears?|wearing|wore|prescribed|switched\s+to|came\s+off|coming\s+off|off)\s+(?:(?:a|an|some|daily|regular|new|his|her|their|my|the|low-dose|high-dose|prescription|prescribed|extra|strong|weekly|\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ml|milligrams?|micrograms?)(?:\s+of)?)\s+){0,2}(?:` + phrases(medications) + `|(?-i:PrEP))\b`)},
	{name: "health care", category: CategoryHealth, reason: healthReason, valid: plainTerm,
		gate: gate{terms: terms(nil, care)},
		re:   regexp.MustCompile(`(?i)\b(?:` + timeIsFor + `|sees?|saw|seeing|visits?|visited|visiting|goes\s+to|go\s+to|going\s+to|went\s+to|attends?|attended|attending|books?|booked|has\s+(?:an?\s+)?(?:appointments?|sessions?)\s+with|talks?\s+to|talking\s+to|started|starts?|in|doing|does|undergoing|undergoes|underwent|receiving|receives?|getting|gets|had|has|having|needs?|scheduled|finished|finishes|finishing|completed|completes|began|begins|resumed|resumes|continues|continuing|paused|stopped|ended|ends|going\s+through|goes\s+through|went\s+through|after|back\s+from|back\s+in|out\s+of)\s+(?:(?:a|an|his|her|their|my|the|weekly|regular|daily|group|grief|family|cognitive|behavioral|behavioural|physical|hormone|marriage|private)\s+){0,2}` + phrases(care) + `\b`)},
	{name: "own health", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, notContraction),
		gate: gate{terms: terms(nil, conditions, medications, care, healthNouns)},
		re:   regexp.MustCompile(`(?i)` + possessive + `\s+(?:(?:` + healthMods + `|own|ongoing|upcoming)\s+){0,2}` + phrases(conditions, medications, care, healthNouns) + `\b`)},
	{name: "health reason", category: CategoryHealth, reason: healthReason, valid: plainTerm,
		gate: gate{terms: terms(nil, conditions, medications, care, healthNouns)},
		re: regexp.MustCompile(`(?i)\b(?:because\s+of|due\s+to|owing\s+to|on\s+account\s+of|given|for|during|while\s+(?:in|on|having|doing|getting|undergoing|recovering\s+from)|after|following|from|around)\s+(?:(?:` + healthMods + `|the|upcoming)\s+){0,2}` + phrases(conditions, medications, care, healthNouns) + `\b` +
			// The days that care takes: "late starts on IVF days".
			`|\b(?:on|before|between)\s+(?:(?:his|her|their|my|the)\s+)?` + phrases(medications, care) + `\s+(?:days?|mornings?|afternoons?|evenings?|nights?|weeks?)\b`)},

	// Finances.
	{name: "pay", category: CategoryFinances, reason: "personal finances (pay)", valid: moneyAmount,
		gate: gate{terms: terms([]string{"salary", "pay", "compensation", "comp", "paycheck", "take", "home", "bonus", "raise", "rate", "equity", "rsu", "rsus", "wage", "wages", "income"}), minDigits: 1},
		re:   regexp.MustCompile(`(?i)(?:\b(?:salary|base\s+(?:salary|pay)|total\s+comp(?:ensation)?|compensation|take[- ]home(?:\s+pay)?|paycheck|annual\s+income|income)|` + possessive + `\s+(?:pay|bonus|raise|rate|hourly\s+rate|day\s+rate|equity|rsus?|comp|wages?))\s+(?:is|was|will\s+be|is\s+now|went\s+up\s+to|of|are|:|=)\s+` + money)},
	{name: "earnings", category: CategoryFinances, reason: "personal finances (pay)", valid: all(earningsAmount, aboutAPerson, plainTerm, notBusinessMoney),
		gate: gate{terms: terms([]string{"make", "makes", "made", "making", "earn", "earns", "earned", "earning", "paid", "take", "takes", "home", "bring", "brings", "bringing", "grosses", "nets"}), minDigits: 1},
		re:   regexp.MustCompile(`(?i)\b(?:makes?|made|making|earns?|earned|earning|gets?\s+paid|got\s+paid|(?:is|am|are|was|['’]m|['’]re)\s+paid|takes?\s+home|bring(?:s|ing)?\s+in|grosses|nets)\s+(?:only\s+|just\s+)?` + money + `(\s+(?:a|an|per|each|every)\s+(?:year|month|week|hour|annum|day)|\s*/\s*(?:h|hr|yr|mo|year|month)\b)?`)},
	{name: "job search", category: CategoryFinances, reason: "a personal job search", valid: plainTerm,
		gate: gate{terms: terms([]string{"interviewing", "looking", "hunting", "offer", "quit", "quitting", "resign", "resigning", "leave", "leaving", "notice"})},
		re:   regexp.MustCompile(`(?i)\b(?:interviewing\s+(?:elsewhere|(?:at|with)\s+(?:other|another)\s+compan(?:y|ies)|for\s+(?:other|another|a\s+new)\s+(?:jobs?|roles?|positions?))|` + be + `\s+(?:actively\s+|quietly\s+|secretly\s+)?(?:looking\s+for\s+(?:a\s+new|another)\s+(?:job|role|position)|job[- ]hunting|(?:thinking\s+(?:of|about)|considering|planning\s+(?:on|to))\s+(?:quit(?:ting)?|resign(?:ing)?|leav(?:e|ing)\s+(?:the\s+company|(?:my|his|her|their)\s+job)))|(?:i|he|she|they|user|employee)\s+(?:got|has|have|received|['’]ve\s+got|['’]ve\s+received)\s+an?\s+job\s+offer|hand(?:ing|ed|s)?\s+in\s+(?:my|his|her|their)\s+notice)\b`)},
	{name: "debt", category: CategoryFinances, reason: "personal debt", valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: terms([]string{"owe", "owes", "owed", "owing", "bankrupt", "bankruptcy"}, debts, financialTroubles)},
		re: regexp.MustCompile(`(?i)\b(?:(?:has|have|had|having|got|carries|carrying|` + be + `\s+in|in|paying\s+off|paying\s+down|pays\s+off|repaying|repays|my|his|her|their)\s+(?:(?:a|an|some|huge|big|lot|lots|of|massive|serious|deep|crippling|personal|private|the|[$€£₹]?[\d,.]+k?|about|around|over|still|many|several|multiple|mounting|outstanding|unpaid|so\s+much)\s+){0,3}` + phrases(debts) +
			`|owe[sd]?\s+(?:(?:about|around|over|nearly|almost|roughly)\s+)?(?:[$€£₹]\s?\d[\d,.]*(?:\s*(?:k|m|grand|thousand)\b)?|\d[\d,.]*\s*(?:k|m|grand|thousand|dollars|euros|pounds|usd|eur|gbp)\b)|(?:filed|filing|files|declared|declaring)\s+(?:for\s+)?(?:(?:chapter\s+\d+|personal)\s+)?bankruptcy|went\s+bankrupt` +
			`|(?:because\s+of|due\s+to|owing\s+to|for|from)\s+(?:(?:his|her|their|my|the)\s+)?` + phrases(financialTroubles) + `)\b`)},
	// Money trouble that only a person has, wherever it is said.
	{name: "money trouble", category: CategoryFinances, reason: "personal debt", valid: plainTerm,
		gate: gate{terms: terms([]string{"owe", "owes", "owed", "broke", "bankrupt", "insolvent", "behind", "paycheck", "paycheque", "garnished", "drowning", "buried", "deep", "struggling", "struggles", "hardship", "troubles", "problems", "difficulties", "financially", "financial", "money"})},
		re: regexp.MustCompile(`(?i)\b(?:(?:drowning|buried|deep)\s+in\s+(?:(?:debt|student\s+loans?|credit\s+card\s+debt|medical\s+bills|bills))|(?:struggling|struggles)\s+(?:with\s+)?(?:(?:his|her|their|my|the)\s+)?(?:debt|student\s+loans?|medical\s+bills|rent|bills|money|finances)|(?:struggling|struggles)\s+financially|owe[sd]?\s+(?:(?:his|her|their|my|the)\s+)?(?:landlord|bank|parents|irs|hmrc|tax\s+office|ex|family)\s+(?:\w+\s+){0,4}?(?:rent|money|taxes|support)` +
			`|` + be + `\s+(?:(?:flat|totally|completely|so)\s+)?(?:broke|bankrupt|insolvent|behind\s+on\s+(?:(?:his|her|their|my|the)\s+)?(?:rent|mortgage|payments|bills|loan\s+payments|child\s+support|taxes|credit\s+card))|broke\s+until\s+(?:payday|the\s+end\s+of\s+the\s+month)|pay(?:check|cheque)\s+to\s+pay(?:check|cheque)|(?:wages|salary|pay)\s+(?:are|is|were|was)\s+(?:being\s+)?garnished|(?:financial|money)\s+(?:hardship|troubles|problems|difficulties))\b`)},
	{name: "savings", category: CategoryFinances, reason: "personal savings or balance",
		gate: gate{terms: terms([]string{"balance", "savings", "worth", "credit", "pension", "bank", "score", "rating", "checking", "account"})},
		re:   regexp.MustCompile(`(?i)(?:` + possessive + `\s+(?:bank\s+|checking\s+|savings\s+|account\s+)?balance\s+(?:is|was|:)|` + possessive + `\s+(?:savings\s+(?:account|are|is|of)|net\s+worth|credit\s+score|credit\s+rating|pension\s+pot)\b|\bha(?:s|ve)\s+` + money + `\s+in\s+(?:(?:my|his|her|their)\s+)?(?:savings|the\s+bank|(?:bank|savings|checking)\s+account)|\b(?:has|have|had|with)\s+(?:a\s+)?(?:bad\s+|poor\s+|low\s+|terrible\s+|good\s+)?credit\s+(?:score|rating)\s+(?:of|is|around|below)\b|\bcredit\s+score\s+(?:is|of|:)\s*\d)`)},

	// Legal matters.
	{name: "legal matter", category: CategoryLegal, reason: "a personal legal matter (arrest, conviction, lawsuit)", valid: all(plainTerm, notProbationPeriod),
		gate: gate{terms: terms([]string{"arrested", "convicted", "indicted", "deported", "detained", "jailed", "imprisoned", "incarcerated", "sentenced", "charged", "prosecuted", "criminal", "record", "conviction", "probation", "parole", "dui", "dwi", "felony", "lawsuit", "divorce", "divorced", "custody", "court", "immigration", "suing", "jail", "prison", "guilty", "misdemeanour", "misdemeanor", "asylum", "restraining", "undocumented", "visa", "served", "sued", "caution"})},
		re:   regexp.MustCompile(`(?i)\b(?:(?:was|were|been|got|gets|is\s+being|are\s+being|['’]s\s+been|being)\s+(?:arrested|convicted(?:\s+of)?|indicted|deported|detained|jailed|imprisoned|incarcerated|sentenced|prosecuted|charged\s+with)|convicted\s+of|pleaded\s+guilty|served\s+time|(?:in|out\s+of|from)\s+(?:the\s+)?(?:jail|prison)|(?:has|have|had|with)\s+an?\s+(?:criminal\s+record|conviction|record\s+for|dui|dwi|felony|(?:felony|misdemeanou?r|drug|criminal)\s+(?:conviction|charge|record))|(?:got|gets|getting|received|receives|picked\s+up)\s+an?\s+(?:criminal\s+record|conviction|dui|dwi|felony|(?:felony|misdemeanou?r|drug|criminal)\s+(?:conviction|charge|record)|police\s+caution|suspended\s+sentence)|(?:on|violated|violating)\s+(?:probation|parole)|(?:has|have|had|with|my|his|her|their|['’]s)\s+(?:an?\s+|the\s+)?(?:(?:pending|upcoming|ongoing|next|weekly|monthly)\s+)?(?:criminal\s+record|conviction|dui|dwi|(?:probation|parole)\s+(?:officers?|appointments?|meetings?|hearings?|check-?ins?)|lawsuit|divorce|custody\s+(?:case|hearing|battle|dispute|fight)s?|court\s+(?:case|date|hearing|appearance)s?|immigration\s+(?:case|hearing|status|lawyer)|asylum\s+(?:case|claim|hearing|application)|restraining\s+order|visa\s+status)|` + be + `\s+(?:suing|getting\s+divorced|going\s+through\s+a\s+divorce|undocumented|an?\s+asylum\s+seeker)|(?:getting|got)\s+divorced|going\s+through\s+(?:a|the|his|her|their|my)\s+divorce|(?:suing|sued)\s+(?:his|her|their|my)\s+(?:former\s+|old\s+|previous\s+|last\s+|ex-?)?(?:employer|landlord|ex|partner|husband|wife|company|boss)|(?:hearing|trial)\s+in\s+(?:the|his|her|their|my)\s+(?:custody|divorce|criminal|immigration)\s+case)\b`)},

	// Sexual orientation and gender identity.
	{name: "sexual orientation", category: CategorySexuality, reason: "sexual orientation or gender identity", valid: all(plainTerm, notBI, headTerm(sexualIdentities)),
		gate: gate{terms: terms(nil, sexualIdentities)},
		re: clauseRule(`(?i)\b(?:` + be + `|came\s+out\s+as|comes\s+out\s+as|coming\s+out\s+as|out\s+as|identif(?:y|ies|ied|ying)\s+as|lives?\s+as|living\s+as|transitioned\s+to\s+being)\s+(?:(?:a|an|openly|proudly|also|now|out|closeted|happily|married|and|not)\s+){0,2}` + phrases(sexualIdentities) + `\b` +
			`|` + clauseStart + `(?:(?:a|an|openly|proudly|out|closeted|happily|married)\s+){0,2}` + phrases(sexualIdentities) + `\b`)},
	{name: "coming out", category: CategorySexuality, reason: "sexual orientation or gender identity", valid: all(plainTerm, notTransitioningTo, notOutedAsOther),
		gate: gate{terms: terms([]string{"came", "come", "comes", "coming", "sex", "closeted", "closet", "out", "outed", "transitioning", "affirming", "sexual", "sexuality", "orientation", "gender", "identity", "samesex"})},
		re:   regexp.MustCompile(`(?i)\b(?:c(?:ame|omes?|oming)\s+out\s+(?:to|at)\s+(?:(?:his|her|their|my|the|close|some|a|few|only)\s+){0,2}(?:family|parents|friends|team|colleagues|coworkers|co-workers|manager|boss|work|mum|mom|dad|everyone)|same[-\s]?sex\s+(?:marriage|partner|relationship|couple|spouse|wife|husband|partnership)|(?:i|he|she|they)(?:\s+is|\s+are|\s+am|['’]s|['’]re|['’]m)\s+not\s+(?:yet\s+)?out\b|not\s+out\s+(?:at\s+work|to\s+(?:his|her|their|my|the)\s+\w+)|(?:is|am|are|['’]s|['’]re|['’]m|was)\s+(?:still\s+)?(?:closeted|in\s+the\s+closet)|(?:is|am|are|['’]s|['’]re|['’]m|started|began|begun)\s+transitioning|gender[-\s]affirming\s+(?:care|surgery|treatment)|(?:be|being|been|was|were|got|get|gets|getting)\s+outed|outed\s+(?:me|him|her|them)|` + possessive + `\s+(?:sexual\s+orientation|sexuality|gender\s+identity|coming\s+out))\b`)},

	// Religion.
	{name: "religion", category: CategoryReligion, reason: "religious belief", valid: all(plainTerm, headTerm(religiousIdentities)),
		gate: gate{terms: terms(nil, religiousIdentities)},
		re: clauseRule(`(?i)\b(?:` + be + `|raised|born|grew\s+up|identif(?:y|ies|ied)\s+as)\s+(?:(?:` + religionMods + `)\s+){0,3}` + phrases(religiousIdentities) + `\b` +
			`|` + clauseStart + `(?:(?:` + religionMods + `|former|converted)\s+){0,3}` + phrases(religiousIdentities) + `\b`)},
	{name: "religious practice", category: CategoryReligion, reason: "religious belief", valid: plainTerm,
		gate: gate{terms: terms([]string{"pray", "prays", "prayed", "praying", "convert", "converts", "converted", "converting", "islam", "christianity", "judaism", "catholicism", "hinduism", "buddhism", "sikhism", "hijab", "turban", "kippah", "kippa", "yarmulke", "niqab", "burqa", "headscarf", "dastar", "prayer", "religion", "religious", "faith"}, worship, observances)},
		re: regexp.MustCompile(`(?i)\b(?:(?:` + timeIsFor + `|attends?|attended|attending|goes\s+to|go\s+to|going\s+to|went\s+to|visits?|visiting)\s+(?:(?:the|a|his|her|their|my|local|weekly|daily|sunday|friday|saturday|evening|morning|midnight|regular|every)\s+){0,2}` + phrases(worship) +
			`|(?:observes?|observed|observing|keeps?|kept|keeping|celebrates?|celebrated|celebrating|fasts?|fasted|fasting|eats?|eating|eat|follows?|following|practi[cs]es?|practi[cs]ing|prefers?|needs?|wants?|requires?|only)\s+(?:(?:the|a|strict|strictly|only|for|during|on|food|meals)\s+){0,2}` + phrases(observances) +
			`|pray(?:s|ed|ing)?\s+(?:(?:five|three|two|several|\d+)\s+times|daily|regularly|every|each|before|after|at\s+(?:noon|dawn|sunset|midday|lunch|lunchtime|work|the\s+mosque)|during|on\s+\w+days|facing|in\s+the\s+(?:morning|evening|prayer\s+room))` +
			`|convert(?:ed|s|ing)?\s+to\s+(?:islam|christianity|judaism|catholicism|hinduism|buddhism|sikhism)` +
			`|(?:wears?|wearing|wore)\s+(?:(?:a|an|the|her|his|their)\s+)?(?:hijab|turban|kippah|kippa|yarmulke|niqab|burqa|headscarf|head\s+scarf|dastar)` +
			`|(?:uses?|using|needs?|books?|booked|requests?|requested|wants?|asks?\s+for|asked\s+for)\s+(?:(?:the|a|an)\s+)?prayer\s+(?:room|space|breaks?|mat)` +
			`|` + possessive + `\s+(?:religion|religious\s+(?:beliefs|views|observance)|faith)` +
			// A person's own worship or observance: "my Jummah", "her
			// Shabbat". Mass and Lent are read in capitals ("the
			// object's mass"), a temple and a confession not at all.
			`|` + possessive + `\s+(?:(?:daily|weekly|friday|sunday|saturday|evening|morning|midday|local)\s+)?(?:` + phrases(ownWorship) + `|(?-i:Mass|Lent))` +
			`|^\s*(?:halal|kosher)\s+(?:food\s+|meals\s+)?only` +
			`|for\s+religious\s+reasons)\b`)},
	{name: "religious reason", category: CategoryReligion, reason: "religious belief", valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: terms(nil, observances, religiousNouns, worship)},
		re: regexp.MustCompile(`(?i)\b(?:because\s+of|due\s+to|for|during|over|around|on|while\s+observing|while\s+fasting\s+for|through|throughout|until\s+after|after)\s+(?:(?:the|his|her|their|my|a|daily|friday|evening|morning|midday|sunday|saturday|weekly)\s+){0,2}` + phrases(observances, religiousNouns, worship) + `\b` +
			// "In" is a time only before an observance: "in Ramadan", not
			// "a degree in religion".
			`|\bin\s+(?:the\s+)?(?:month\s+of\s+|days\s+of\s+)?` + phrases(observances) + `\b`)},

	// Politics. Where alternatives share a start, the longer comes first:
	// FindAll keeps the first that matches, and a validator that drops it
	// ("Republican" before "campaign", a domain noun) loses the longer one.
	{name: "political affiliation", category: CategoryPolitics, reason: "political opinion or affiliation", valid: all(plainTerm, headTerm(politicalIdentities), notAName),
		gate: gate{terms: terms([]string{"vote", "votes", "voted", "voting", "party", "politically", "politics", "political"}, politicalIdentities, parties, partyAdjectives, politicians)},
		re: clauseRule(`(?i)\b(?:` +
			`(?:` + be + `|standing\s+as|stands\s+as|ran\s+as|running\s+as|identif(?:y|ies)\s+as)\s+(?:(?:` + politicsMods + `)\s+){0,2}` + phrases(politicalIdentities) +
			`|(?:vot(?:e|es|ed|ing)\s+(?:for\s+)?(?:the\s+)?|supports?\s+|supported\s+)` + phrases(parties, leaders) +
			`|(?:member\s+of|joined|supports?|supported|supporting|donates?\s+(?:\w+\s+)?to|donated\s+(?:\w+\s+)?to|donating\s+to|campaigns?\s+for|campaigned\s+for|campaigning\s+for|canvass(?:es|ed|ing)?\s+for|volunteers?\s+for|volunteered\s+for|volunteering\s+for|works?\s+for|worked\s+for|stands?\s+for|standing\s+for|ran\s+for|running\s+for|belongs?\s+to)\s+(?:(?:the|a|an|local|his|her|their|my)\s+){0,2}(?:` + phrases(partyAdjectives, politicians) + `\s+` + phrases(politicalRoles) + `|` + phrases(parties) + `|(?-i:[A-Z][\w'’]*\s+){1,2}(?:party|Party))` +
			`|(?:\b(?:as|a|an)|lifelong|life-long|registered|longtime|long-time|committed|staunch|card-carrying|die-hard|diehard)\s+(?:(?:a|an|lifelong|registered)\s+)?` + phrases(partyAdjectives, parties, politicians) + `\s+(?:party\s+)?` + phrases(politicalRoles) +
			`|(?:active|involved|activist)\s+in\s+(?:local\s+|national\s+|party\s+|student\s+)?politics|politically\s+active` +
			`|` + possessive + `\s+` + phrases(politicalNouns) + `)\b` +
			// Last, so that a longer alternative at the same start wins. A
			// side's voter or member opens a clause too: "Labour voter".
			`|` + clauseStart + `(?:(?:` + politicsMods + `|former)\s+|ex-){0,2}(?:` + phrases(partyAdjectives, parties) + `\s+(?:party\s+)?(?:voter|supporter|member|activist|donor|loyalist)|` + phrases(politicalIdentities) + `)\b`)},

	// Trade unions.
	{name: "union membership", category: CategoryUnion, reason: "trade union membership", valid: all(plainTerm, notOtherUnion),
		gate: gate{terms: terms([]string{"union", "steward", "unionist"})}, // every union term holds one
		re:   regexp.MustCompile(`(?i)\b(?:` + phrases(unionTerms) + `|(?:member\s+of|joined|joins|join|belongs?\s+to|in|rep\s+for|representative\s+for|steward\s+for|organi[sz]ing|organi[sz]es)\s+(?:the\s+|a\s+|an\s+)?(?:[\w'’]+\s+){0,3}union(?:\s+of\s+(?:the\s+)?(?:\w+\s+){0,2}workers)?|union\s+of\s+(?:the\s+)?(?:\w+\s+){0,2}workers)\b`)},

	// Racial or ethnic origin, said as what a person is: "is mixed race",
	// "identifies as Latina", or a clause with no verb ("Black British",
	// "Kurdish, based in Leeds"). An origin ends its clause or heads a
	// person ("Black woman in tech"): "Black Friday sale", "Indigenous
	// languages NLP project" and "a Roma fan" are about something else.
	// Pride in being one is being one: "Is proud of being Black". A
	// colour is read by colourOfAPerson instead.
	{name: "ethnicity", category: CategoryEthnicity, reason: "racial or ethnic origin", valid: all(plainTerm, colourOrElse(ethnicHead(headTerm(ethnicIdentities)), aboutAPersonByVerb)),
		gate: gate{terms: terms([]string{"black", "white", "brown", "roma", "traveller", "gypsy"}, ethnicIdentities)},
		re: clauseRule(`(?i)\b(?:` + be + `|identif(?:y|ies|ied|ying)\s+as|born|raised|grew\s+up|proud\s+(?:of\s+being|to\s+be))\s+(?:(?:a|an|proudly|also|half|part|mixed|british|american|irish)\s+){0,2}(?:` + phrases(ethnicIdentities) + `|` + ethnicCapitals + `|` + ethnicColours + `)\b` +
			`|` + clauseStart + `(?:(?:a|an|proudly|half|british|american)\s+){0,2}(?:` + phrases(ethnicIdentities) + `|` + ethnicCapitals + `|` + ethnicColours + `)\b`)},
}

const healthReason = "a personal health statement (a condition, treatment or medication)"

// all accepts a match that every check accepts.
func all(checks ...func(string, []int) bool) func(string, []int) bool {
	return func(text string, loc []int) bool {
		for _, c := range checks {
			if !c(text, loc) {
				return false
			}
		}
		return true
	}
}

// domainNouns are what a term modifies when it names a product, a team, a
// dataset or a field of work rather than a person's condition, belief or
// affiliation: "the diabetes-risk dashboard", "medication reminder
// feature", "cancer registry migration", "Temple University", "the Ramadan
// traffic peak"; or a role that serves it: "a mental health first aider",
// "a cancer patient advocate".
var domainNouns = wordSet(`data dataset datasets dashboard dashboards pipeline pipelines team teams service services
	app apps application applications feature features project projects product products model models api apis
	module modules research study studies trial trials patient patients ward unit units screening screenings
	detection risk risks tracker trackers tracking reminder reminders booking bookings portal portals platform
	platforms report reports reporting metrics metric cohort cohorts label labels registry registries codes billing
	coverage benefit benefits policy policies campaign campaigns content vertical verticals domain desk segment
	market markets industry sector space squad org funnel page pages form forms flow flows workflow workflows queue
	queues table tables schema schemas database databases db index bot bots integration integrations system systems
	tool tools tooling software saas library libraries package packages startup startups company companies client
	clients customer customers vendor vendors account accounts awareness fundraiser charity scheduling scheduler
	calculator classifier firmware sdk lab labs migration endpoint endpoints microservice microservices backend
	frontend ui ux demo demos bug bugs ticket tickets issue issues pr prs repo repos notebook notebooks analysis
	analytics simulation simulations spreadsheet spreadsheets doc docs documentation guide guides guidelines finder
	search map maps filings parser law laws legislation news article articles story stories reporter beat ads ad
	landing banner banners mailer mailing university college street road avenue run batteries battery ion mining
	prices rota crm build builds planner planning planners committee find type types query queries select events
	event calendar kit kits testing test tests assessment questionnaire survey surveys protocol protocols
	certification management automation reporting records kiosk hotline helpline center centre centers centres provider providers
	insurer insurance claims monitoring orders order delivery deliveries shipping inventory stock pricing marketing rates
	mode analyzer analyser theory beverage beverages bar pub district station square chatbot assistant copilot
	initiative initiatives program programme programs rollout budget budgets strategy roadmap launch release sprint
	epic okr okrs hackathon persona personas interviews arr mrr revenue sales profit profits bookings gmv ebitda
	margin margins funding traffic peak peaks spike spikes surge surges sale promo promos promotion promotions load
	volume volumes freeze code advocate advocates navigator navigators liaison liaisons coordinator coordinators
	champion champions ambassador ambassadors aider aiders`)

// stopWords end the look past a term: what follows them is a new phrase.
var stopWords = wordSet(`and or but so since because as every each on at in for from with to of twice once the a an
	his her their my its which that who while when after before until during is was are were has have had lol daily
	weekly monthly too also now still then this these those nine`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// plainTerm accepts a personal term used of a person, and drops it where
// it names something else: when it runs on into a compound word
// ("diabetes-risk", "therapy_app", "religious/secular"), when "about" or
// "of" follows ("anxiety about the launch", "a stroke of luck"), and when one
// of the next two words, before any stop word or punctuation, is a domain
// noun ("the cancer screening model", "the therapy booking app").
func plainTerm(text string, loc []int) bool {
	end := loc[1]
	if end < len(text) && strings.IndexByte("-_/", text[end]) >= 0 && end+1 < len(text) && isAlnum(text[end+1]) {
		return false
	}
	rest := text[end:]
	for i := 0; i < 2; i++ {
		w, next, ok := nextWord(rest)
		if !ok {
			return true
		}
		w = strings.ToLower(w)
		switch {
		case i == 0 && (w == "about" || w == "of" || w == "over" || w == "regarding" || w == "towards"):
			return false
		case i == 0 && w == "to" && (strings.HasSuffix(strings.ToLower(text[:end]), "blind") || strings.HasSuffix(strings.ToLower(text[:end]), "deaf")):
			return false // "is blind to the risk"
		case domainNouns[w] || domainNouns[strings.TrimSuffix(w, "'s")]:
			return false
		case stopWords[w]:
			return true
		}
		rest = next
	}
	return true
}

// nextWord returns the word that starts rest after spaces, and what
// follows it; ok is false at punctuation or the end of the text.
func nextWord(rest string) (word, after string, ok bool) {
	i := 0
	for i < len(rest) && rest[i] == ' ' {
		i++
	}
	j := i
	for j < len(rest) && (isAlnum(rest[j]) || rest[j] == '\'' || rest[j] == '-') {
		j++
	}
	if j == i {
		return "", "", false
	}
	return rest[i:j], rest[j:], true
}

// personWords name a person in the subject of a sentence.
var personWords = wordSet(`i i'm i’m me my he she they him her them his their he's she's they're user user's
	employee employee's person person's colleague colleague's member member's report report's candidate
	requester contractor intern manager engineer teammate coworker co-worker individual`)

// statementVerbs start a canonical memory about a person ("Prefers …",
// "Earns …", "Proud of …") or follow a name ("Olu earns …").
var statementVerbs = wordSet(`is was has had prefers wants needs likes loves hates dislikes avoids asks asked requests
	requested takes took keeps eats drinks fasts observes celebrates attends goes works leaves skips blocks books uses
	earns makes made gets got lives sees visits prays wears joined votes supports donates volunteers campaigns owes
	pays filed came identifies converted practises practices follows believes belongs would will can cannot can't
	does doesn't won't isn't wasn't hasn't never always usually often also still now recently currently brings
	grosses nets receives received went ran runs stood stands marched marches protests protested attended goes joins
	organises organizes organised organized plays played sings sang helps helped serves served lost loses borrowed
	borrows took taking paid spent applied claims claimed struggles struggled missed finished started began got
	had gets been being sees saw underwent needed faces faced turned gambles gambled overstayed seeks sought seeking
	inherited remortgaged declared defaulted owed spends lends lent sold bought owns holds saves saved invested invests
	appeared appears pleaded served sued sues applies reported suffers suffered survived stopped quit returned returns
	moved fled won lobbies petitions canvasses canvassed campaigned signed diagnosed treated hospitalised hospitalized
	admitted discharged injured broke tore sprained fractured recovered relapsed copes deals battles fights fought
	skipped completed spent wore carries carried proud`)

// nonNames are capitalised words that start a sentence about a thing.
var nonNames = wordSet(`the this that these those our their its it we every each some a an all no any my your one
	team everyone nobody traffic sales revenue`)

var clausePunctuation = strings.NewReplacer(",", " ", ":", " ", "(", " ", ")", " ")

// aboutAPerson accepts a match in a sentence about a person: one that
// starts with a statement verb (the canonical "Earns …", "Wants …"), a
// person ("She", "The user", "Employee", "<@U123>") or a name and a
// statement verb ("Olu earns …"), so "The add-on earns $140k a year" and
// "Traffic spikes during Ramadan" are about things.
func aboutAPerson(text string, loc []int) bool {
	start := strings.LastIndexAny(text[:loc[0]], ".!?;\n") + 1
	words := strings.Fields(clausePunctuation.Replace(text[start:loc[1]]))
	if len(words) == 0 {
		return false
	}
	lower := func(i int) string {
		if i >= len(words) {
			return ""
		}
		return strings.ToLower(words[i])
	}
	w0 := lower(0)
	switch {
	case statementVerbs[w0] || personWords[w0] || strings.HasPrefix(w0, "<@"):
		return true
	case (w0 == "team" || w0 == "direct") && personWords[strings.TrimSuffix(strings.TrimSuffix(lower(1), "'s"), "’s")]:
		return true // "Team member's wages", "Direct report …"
	case w0 == "the" || w0 == "this" || w0 == "a" || w0 == "our":
		return personWords[lower(1)] || lower(1) == "team" && personWords[lower(2)]
	case nonNames[w0]:
		return false
	}
	// A name: one or two capitalised words, then a statement verb or "'s".
	for i := 0; i < 2 && i < len(words); i++ {
		w := words[i]
		if w == "" || w[0] < 'A' || w[0] > 'Z' {
			return false
		}
		if strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") || statementVerbs[lower(i+1)] {
			return true
		}
	}
	return false
}

// businessMoney are what a company earns, not a person.
var businessMoney = wordSet(`arr mrr revenue revenues sales profit profits bookings gmv ebitda margin margins funding
	budget spend costs savings turnover income valuation`)

// notBusinessMoney drops an amount that the next few words say is a
// company's: "makes $2M in ARR", "earns $50k a month in revenue".
func notBusinessMoney(text string, loc []int) bool {
	rest := text[loc[1]:]
	for i := 0; i < 4; i++ {
		w, next, ok := nextWord(rest)
		if !ok {
			return true
		}
		if businessMoney[strings.ToLower(w)] {
			return false
		}
		rest = next
	}
	return true
}

// notContraction drops "it's", "that's", "what's": "It's therapy for
// the soul to delete dead code" is not anyone's therapy.
func notContraction(text string, loc []int) bool {
	m := text[loc[0]:loc[1]]
	if !strings.HasPrefix(m, "'s") && !strings.HasPrefix(m, "’s") {
		return true
	}
	before := strings.Fields(text[:loc[0]])
	if len(before) == 0 {
		return true
	}
	switch strings.ToLower(before[len(before)-1]) {
	case "it", "that", "what", "there", "here", "let", "who", "where", "how", "this", "he", "she", "one", "everything", "nothing", "something":
		return false
	}
	return true
}

// clauseRule compiles a rule whose verbless alternative opens with
// clauseStart, which must be its only capturing group.
func clauseRule(expr string) *regexp.Regexp {
	re := regexp.MustCompile(expr)
	if re.NumSubexp() != 1 {
		panic("detect: a clause rule's only group is clauseStart: " + expr)
	}
	return re
}

// headFollowers are the words after a state or an identity that opens a
// clause with no verb and is said of a person: a reason or a time
// ("Pregnant with twins", "Registered Republican since 2016"), or the
// person it heads ("Gay man living in Berlin", "Republican voter in
// Ohio"). Any other word is a thing the term modifies: "Republican Party
// press release", "Muslim holidays calendar", "Deaf user support".
var headFollowers = wordSet(`since with for from in at after until till during who living working based now again
	too also still today tomorrow so because but herself himself themselves myself man woman guy girl boy lady
	gentleman person mum mom mother dad father parent wife husband voter supporter donor activist`)

// nameLike are terms that are also first names ("Christian, the new PM,
// starts Monday"): alone and capitalised at the head of a verbless
// clause, before punctuation or "and", they are read as a name. Roma is
// read so in any case: alone, lower-case "roma" is as often Rome or its
// club ("Favourite club: roma").
var nameLike = wordSet(`christian jain pan bi tory parsi shia amish trans lds roma`)

// headTerm checks a match of a rule's verbless alternative (its group 1,
// clauseStart): a state or an identity that opens a clause is said of a
// person when it ends the clause ("Dan, a practising Muslim, is off"), or
// one of headFollowers or "and" follows it; not when it is a list of such
// terms ("Options: Christian, Muslim, Jewish", "gay and lesbian staff
// network") or a name. A match by a verb passes.
func headTerm(lists ...[]string) func(string, []int) bool {
	words := map[string]bool{}
	for _, l := range lists {
		for _, p := range l {
			for _, w := range strings.FieldsFunc(p, func(r rune) bool { return r == ' ' || r == '-' }) {
				if !stopWords[w] {
					words[w] = true
				}
			}
		}
	}
	return func(text string, loc []int) bool {
		if len(loc) < 4 || loc[2] < 0 {
			return true
		}
		body := strings.Fields(text[loc[3]:loc[1]])
		name := len(body) == 1 && nameLike[strings.ToLower(body[0])] && (body[0][0] >= 'A' && body[0][0] <= 'Z' || strings.EqualFold(body[0], "roma"))
		rest := text[loc[1]:]
		w, next, ok := nextWord(rest)
		switch w = strings.ToLower(w); {
		case ok && (w == "and" || w == "or"):
			w2, _, ok2 := nextWord(next)
			return !name && !(ok2 && words[strings.ToLower(w2)])
		case ok:
			return headFollowers[w]
		case name:
			return false
		}
		// The clause ends here: it is a list when a term is next to it.
		if words[strings.ToLower(lastWord(text[:loc[2]]))] {
			return false
		}
		rest = strings.TrimLeft(rest, " ")
		if rest != "" && strings.IndexByte(",/;|&", rest[0]) >= 0 {
			if w, _, ok := nextWord(rest[1:]); ok && words[strings.ToLower(w)] {
				return false
			}
		}
		return true
	}
}

// ethnicHead checks an origin's clause with head, and an origin after a
// verb as head does a clause's: it ends its clause or heads a person ("is
// Black and proud", "is Kurdish on his mother's side"), not a thing ("is a
// Roma fan", "is Black Friday shopping"). Either may head a family that
// ends its phrase ("a Roma family", not "an Asian family restaurant"); a
// Roma supporter is the club's.
func ethnicHead(head func(string, []int) bool) func(string, []int) bool {
	return func(text string, loc []int) bool {
		w, next, ok := nextWord(text[loc[1]:])
		switch w = strings.ToLower(w); {
		case ok && originKin[w]:
			return endsOrHeadsAPerson(next)
		case ok && (w == "supporter" || w == "supporters") && strings.EqualFold(lastWord(text[loc[0]:loc[1]]), "roma"):
			return false
		case len(loc) >= 4 && loc[2] >= 0:
			return head(text, loc)
		}
		return endsOrHeadsAPerson(text[loc[1]:])
	}
}

// originKin are the people an origin is said of together: "a Roma
// family".
var originKin = wordSet(`family families household`)

// endsOrHeadsAPerson reports that rest, what follows a term, ends its
// phrase or goes on with a person or a new phrase: "Kurdish on his
// mother's side", "a Roma woman", not "a Roma fan".
func endsOrHeadsAPerson(rest string) bool {
	w, _, ok := nextWord(rest)
	w = strings.ToLower(w)
	return !ok || headFollowers[w] || stopWords[w]
}

// aboutAPersonByVerb checks a match by a verb with aboutAPerson ("The
// theme is Black" is about a theme); a clause with no verb is headTerm's.
func aboutAPersonByVerb(text string, loc []int) bool {
	if len(loc) >= 4 && loc[2] >= 0 {
		return true
	}
	return aboutAPerson(text, loc)
}

// colourOrElse reads an origin that is also a colour with colourOfAPerson,
// and any other origin with checks.
func colourOrElse(checks ...func(string, []int) bool) func(string, []int) bool {
	others := all(checks...)
	return func(text string, loc []int) bool {
		if originColours[strings.ToLower(lastWord(text[loc[0]:loc[1]]))] {
			return colourOfAPerson(text, loc)
		}
		return others(text, loc)
	}
}

// colourOfAPerson accepts a colour that is what a person is, whatever its
// case: after a verb whose subject is the person ("Is black", "she is
// white", "Identifies as brown"), or opening a clause with no verb, where
// it heads a person or an identity ("a black woman", "black and proud").
// A thing's colour is not an origin: another subject owns the predicate
// ("Background is white", "The theme is black", "Her car is black"), the
// colour modifies a thing ("black theme") or stands alone as a value
// ("Theme: black"), or it is one of a pair of colours ("is black and
// white").
func colourOfAPerson(text string, loc []int) bool {
	w, next, ok := nextWord(text[loc[1]:])
	w = strings.ToLower(w)
	w2, _, ok2 := nextWord(next)
	w2 = strings.ToLower(w2)
	if ok && (w == "and" || w == "or") && ok2 && colourWords[w2] {
		return false
	}
	if len(loc) >= 4 && loc[2] >= 0 {
		switch {
		case ok && (w == "and" || w == "or"):
			return ok2 && identityWords[w2]
		case ok:
			return personNouns[w]
		}
		// Alone at the end of its clause, a colour is a label's value
		// or a name ("Theme: black", "Brown, the new PM"), unless a
		// modifier says it is a person's ("Proudly black").
		for _, m := range strings.Fields(strings.ToLower(text[loc[3]:loc[1]])) {
			if m == "proudly" || m == "half" {
				return true
			}
		}
		return false
	}
	switch {
	case ok && w == "as" && w2 != "well":
		return false // "was white as a sheet"
	case ok && !headFollowers[w] && !stopWords[w]:
		return false // "is a black belt"
	}
	colour := lastWord(text[loc[0]:loc[1]])
	return personIsSubject(text, loc[0], colour[0] >= 'A' && colour[0] <= 'Z')
}

// personIsSubject reports that the clause whose verb starts at verb is
// said of a person: it has no subject (the canonical "Is black", or "Lives
// in Leeds, is black"), or its subject is a pronoun, a person ("the
// user"), a person named by a relation ("her husband", "Bob's wife", "the
// user's manager"; not "her car") or a mention. A name is two capitalised
// words, or a title and a name ("Dr. Okafor"). One capitalised word at the
// start of a sentence has the shape of a thing ("Background is white"), a
// product ("Slack") or a branch ("Main") as much as a name, and no list of
// things that take a colour is ever whole, so it is a name only where it
// is a given name that is no other word (isGivenName), in a text that
// names no animal ("Bella is white" is as likely a dog) and is no legend's
// ("Legend: Alice is white, Bob is black" names placeholders); any other
// is a name only where the predicate is capitalised too ("Alice is
// Black"), and the model review reads the rest.
func personIsSubject(text string, verb int, capitalised bool) bool {
	start := strings.LastIndexAny(text[:verb], ".!?;\n")
	for start > 0 && text[start] == '.' && titles[lastWord(text[:start])] && isTitledName(text[start+1:]) {
		start = strings.LastIndexAny(text[:start], ".!?;\n")
	}
	sentence := text[start+1 : verb]
	clause, goesOn := sentence, false
	if i := strings.LastIndexAny(clause, ",:("); i >= 0 {
		clause, goesOn = clause[i+1:], true
	}
	words := strings.Fields(clause)
	for i := len(words) - 1; i >= 0; i-- {
		if w := strings.ToLower(words[i]); w == "and" || w == "but" {
			words, goesOn = words[i+1:], true
			break
		}
	}
	if len(words) == 0 && goesOn {
		// A clause that goes on from another has the sentence's subject:
		// none ("Lives in Leeds, is black"), or the words before its verb.
		words = strings.Fields(clausePunctuation.Replace(sentence))
		for i, w := range words {
			if statementVerbs[strings.ToLower(w)] {
				words = words[:i]
				break
			}
		}
		if len(words) == 0 {
			return true
		}
	}
	for len(words) > 0 && verbAuxiliaries[strings.ToLower(words[len(words)-1])] {
		words = words[:len(words)-1]
	}
	if len(words) >= 3 && determiners[strings.ToLower(words[0])] && isPossessive(words[1]) {
		words = words[1:] // "the user's manager" is the user's relation
	}
	lower := func(i int) string { return strings.ToLower(words[i]) }
	switch {
	case len(words) == 0:
		return true
	case len(words) == 1 && (subjectPronouns[lower(0)] || strings.HasPrefix(words[0], "<@") || personWords[lower(0)] && !personObjects[lower(0)]):
		return true
	case len(words) == 2 && (lower(0) == "the" || lower(0) == "this" || lower(0) == "a" || lower(0) == "our") && personWords[lower(1)] && !personObjects[lower(1)]:
		return true
	case len(words) >= 2 && len(words) <= 3 && isPossessive(words[0]) && isRelation(lower(len(words)-1)):
		return true // "Her husband is black", "Bob's wife", "my new manager"
	case len(words) > 2:
		return false
	case len(words) == 1 && isGivenName(words[0]) && !namesAnAnimal(text, verb) && !inALegend(text, verb):
		return true
	}
	for i, w := range words {
		if w[0] < 'A' || w[0] > 'Z' || nonNames[lower(i)] || statementVerbs[lower(i)] || personObjects[lower(i)] {
			return false
		}
	}
	return len(words) == 2 || capitalised
}

// isGivenName reports that w is a given name that is no other word, in
// any case ("alice"); a name that is also a lower-case word is one only
// capitalised ("Bob", not the haircut in "bob is black").
func isGivenName(w string) bool {
	l := strings.ToLower(w)
	return givenNames[l] || wordNames[l] && w[0] >= 'A' && w[0] <= 'Z'
}

// nameWindow bounds the text around at that is read for what a name
// there is, so a long text of many colours stays linear.
func nameWindow(text string, at int) (start, end int) {
	start, end = max(0, at-nameReach), min(len(text), at+nameReach)
	for start > 0 && start < end && isAlnum(text[start-1]) {
		start++ // a word cut by the window is no word: "bobcat" holds no cat
	}
	return start, end
}

// namesAnAnimal reports that the text around at names an animal, which
// may have a given name: "Has a dog called Bella. Bella is white".
func namesAnAnimal(text string, at int) bool {
	start, end := nameWindow(text, at)
	for i := start; i < end; {
		if !isAlnum(text[i]) {
			i++
			continue
		}
		j := i
		for j < end && isAlnum(text[j]) {
			j++
		}
		if animalWords[strings.ToLower(text[i:j])] {
			return true
		}
		i = j
	}
	return false
}

// nameReach is how many bytes either side of a name namesAnAnimal
// and inALegend read: a sentence or two.
const nameReach = 200

// inALegend reports that the text around at is a legend's, where given
// names are placeholders that colours mark: a word of diagrams and charts
// is near ("Legend: Alice is white, Bob is black", "Chris is white on the
// chart"), or a name near is given a colour that is no one's origin
// ("Alice is blue and Bob is black"). Two names given origins' colours
// and nothing else ("Alice is white, Bob is black") may be two people,
// and stay found.
func inALegend(text string, at int) bool {
	start, end := nameWindow(text, at)
	near := text[start:end]
	if chartWords.MatchString(near) {
		return true
	}
	for _, m := range nameInAColour.FindAllStringSubmatchIndex(near, -1) {
		if isGivenName(near[m[2]:m[3]]) {
			return true
		}
	}
	return false
}

var (
	// chartWords are the words of diagrams, charts and slides; "node" in
	// lower case only, as "Node" is as often Node.js.
	chartWords = regexp.MustCompile(`(?i)\b(?:(?:legends?|diagrams?|(?:flow)?charts?|graphs?|slides?|sequence|swimlanes?|colou?r[- ]coded|highlighted|(?-i:nodes?))\b|key\s*:)`)
	// nameInAColour is a word given a colour that is no one's origin:
	// "Alice is blue" (its group 1: the word).
	nameInAColour = regexp.MustCompile(`(?i)\b([a-z]+)\s+(?:is|was|are|were)\s+(?:(?:now|in|shown\s+in)\s+)?(?:red|blue|green|yellow|orange|pink|purple|grey|gray|gold|silver|beige|cream|navy|teal|cyan|magenta)\b`)
)

// isPossessive reports that w owns the noun after it: "my", "her",
// "Bob's".
func isPossessive(w string) bool {
	return possessivePronouns[strings.ToLower(w)] || strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s")
}

// isRelation reports that w names a person by their relation to another:
// "husband", "colleague", "manager".
func isRelation(w string) bool {
	return personNouns[w] || relationNouns[w] || personWords[w] && !personObjects[w] && !subjectPronouns[w] && !strings.ContainsAny(w, "'’")
}

var (
	// possessivePronouns own the noun after them: "her husband".
	possessivePronouns = wordSet(`my his her their our your`)
	// determiners come before a person who owns a relation: "the user's
	// manager".
	determiners = wordSet(`the this that`)
	// titles come before a name: "Dr. Okafor".
	titles = wordSet(`Dr Mr Mrs Ms Mx Prof`)
	// givenNames are first names, from many languages, that are no other
	// English word, product or colour: not Ruby, Amber, Jade, Rose, Robin,
	// Grace, Jack, Mark, Max, Claude, Julia or Luna.
	givenNames = wordSet(`aaliyah abena adebayo aditya agnieszka ahmed aisha akua aleksandra alejandro ali alice
		amara amelia amina aminata amir amit ana ananya andrea andrew anil anjali anna arjun ayaan ayesha barbara ben
		benjamin brian camila carlos caroline catherine charlotte chidi chinedu chioma chloe chris christine
		claire daniel darnell david deepak deshawn diana diego dmitri dwayne edward eleanor elena elijah elizabeth
		emily emma eric ethan farhan fatima fatou fernanda fiona folake francesca gabriel george giulia gurpreet
		hannah harpreet harry hassan helen henry hiroshi hussein ibrahim imani imran ingrid isaac isabel isabella
		ivan jamal james jane jaspreet jason jennifer jerome jessica jisoo joao joe john jonas jonathan jose joseph
		juan julie karen karim kate katie kavya keisha kemi kenji kevin khadija klaus kofi kwame lakshmi latoya
		laura lauren layla leila lerato liam linda lisa louise lucia lucy lukas malik manpreet marco marcus maria
		marie marta mary matthew meera megan mei michael michelle miriam mohammed moussa muhammad mustafa nadia
		natalie nathan neha ngozi nia nisha nkechi noah noor nour olga oliver olivia olu oluwaseun omar otieno owen
		piotr pooja priya rachel rafael rahul rania ravi rebecca richard robert rohan ryan salma sam samira samuel sana
		sanjay sara sarah shanice simon simran sipho sofia sophie stephen steve sunil sunita susan tamika tariq
		thabo thandiwe thiago thomas tim tom tunde tyrone valentina vikram wanjiku wei william youssef yuki yusuf
		zainab zoe`)
	// wordNames are given names that are also a lower-case word: "bob", a
	// haircut.
	wordNames = wordSet(`bob`)
	// animalWords name the animals that may have a given name.
	animalWords = wordSet(`cat cats kitten kittens dog dogs puppy puppies pet pets horse horses pony ponies rabbit
		rabbits hamster parrot budgie tortoise`)
	// relationNouns are the people a person has: "my partner", "Bob's
	// wife".
	relationNouns = wordSet(`partner spouse boyfriend girlfriend fiance fiancee fiancé fiancée son daughter child kid
		brother sister sibling mum mom mother dad father parent grandmother grandfather grandma grandpa granny aunt
		uncle cousin niece nephew stepmother stepfather stepmum stepmom stepdad friend flatmate roommate housemate
		neighbour neighbor boss mentor mentee director founder cofounder co-founder doctor nurse carer caregiver`)
	// originColours are the words of ethnicColours.
	originColours = wordSet(`black white brown`)
	// colourWords name colours: beside an origin's colour, a pair of
	// colours ("black and white").
	colourWords = wordSet(`black white brown grey gray red blue green yellow orange pink purple gold silver beige cream navy`)
	// personNouns are the people a colour may head: "a black woman".
	personNouns = wordSet(`man woman guy girl boy lady gentleman person mum mom mother dad father parent wife husband`)
	// subjectPronouns and personWords are a clause's person subject;
	// personObjects are personWords that are not ("her car is black").
	subjectPronouns = wordSet(`i he she they we you`)
	personObjects   = wordSet(`my his her their me him them report`)
	// verbAuxiliaries come before the verb of an origin: "was born white".
	verbAuxiliaries = wordSet(`is am are was were be been being has have had also still always now`)
	// identityWords are the words of the identities a person is, which an
	// origin may be said beside: "black and proud", "black and queer".
	identityWords = func() map[string]bool {
		m := wordSet(`proud disabled female male`)
		for _, l := range [][]string{sexualIdentities, religiousIdentities, ethnicIdentities} {
			for _, p := range l {
				for _, w := range strings.Fields(p) {
					if !stopWords[w] && !colourWords[w] {
						m[w] = true
					}
				}
			}
		}
		return m
	}()
)

// lastWord is the word that ends text, before any spaces.
func lastWord(text string) string {
	text = strings.TrimRight(text, " ")
	i := len(text)
	for i > 0 && (isAlnum(text[i-1]) || text[i-1] == '\'' || text[i-1] == '-') {
		i--
	}
	return text[i:]
}

// partyFollowers are the capitalised words that may follow a side and
// still be about the side: "a Tory MP", "a Labour Party member".
var partyFollowers = wordSet(`mp mps mep meps party member members voter voters supporter supporters councillor
	councilor senator candidate activist donor government`)

// notAName drops a side whose capitalised word a capitalised word
// continues, as a name: "is a Tory Lanez fan". Words in capitals are
// shouted, not names: "IS A REGISTERED DEMOCRAT AND VOTES".
func notAName(text string, loc []int) bool {
	last := lastWord(text[loc[0]:loc[1]])
	if last == "" || last[0] < 'A' || last[0] > 'Z' {
		return true
	}
	w, _, ok := nextWord(text[loc[1]:])
	if !ok || w[0] < 'A' || w[0] > 'Z' || strings.ToUpper(w) == w {
		return true
	}
	lw := strings.ToLower(w)
	return partyFollowers[lw] || stopWords[lw] || headFollowers[lw]
}

// notBI drops "BI", business intelligence, written in capitals.
func notBI(text string, loc []int) bool {
	return !strings.HasSuffix(text[loc[0]:loc[1]], "BI")
}

// notTransitioningTo drops "is transitioning to the new team".
func notTransitioningTo(text string, loc []int) bool {
	if !strings.HasSuffix(strings.ToLower(text[loc[0]:loc[1]]), "transitioning") {
		return true
	}
	w, _, ok := nextWord(text[loc[1]:])
	if !ok {
		return true
	}
	switch strings.ToLower(w) {
	case "to", "into", "from", "off", "away", "over", "out", "the", "our", "their", "its", "his", "her", "a", "an", "teams", "roles":
		return false
	}
	return true
}

// notOutedAsOther drops a person outed as something other than an
// orientation or a gender identity: "was outed as the leaker".
func notOutedAsOther(text string, loc []int) bool {
	if !strings.HasSuffix(strings.ToLower(text[loc[0]:loc[1]]), "outed") {
		return true
	}
	w, next, ok := nextWord(text[loc[1]:])
	if !ok || !strings.EqualFold(w, "as") {
		return true
	}
	for i := 0; i < 3; i++ {
		if w, next, ok = nextWord(next); !ok {
			return false
		}
		if sexualWords[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// sexualWords are the words of sexualIdentities.
var sexualWords = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range sexualIdentities {
		for _, w := range strings.Fields(p) {
			m[w] = true
		}
	}
	return m
}()

// notProbationPeriod drops a new hire's probation: "on probation for the
// new role", "on a probation period".
func notProbationPeriod(text string, loc []int) bool {
	if !strings.HasSuffix(strings.ToLower(text[loc[0]:loc[1]]), "probation") {
		return true
	}
	rest := strings.ToLower(text[loc[1]:min(len(text), loc[1]+40)])
	for _, w := range []string{" period", " review", " as a new", " for the new", " in the new", " at work", " until the review"} {
		if strings.HasPrefix(rest, w) {
			return false
		}
	}
	return true
}

var moneyToken = regexp.MustCompile(`(?i)([$€£₹¥])?\s?(\d[\d,.]*)\s*(k|m|bn|thousand|million|grand|lakhs?|crores?|usd|eur|gbp|chf|cad|aud|inr|dollars?|euros?|pounds?|rupees?|yen)?\b`)

// moneyAmount accepts an amount that reads as money: a currency, a
// magnitude ("180k") or at least four digits, not "my bonus is 5 points".
func moneyAmount(text string, loc []int) bool {
	for _, m := range moneyToken.FindAllStringSubmatch(group(text, loc, 0), -1) {
		if m[1] != "" || m[3] != "" || len(digitsOf(m[2])) >= 4 {
			return true
		}
	}
	return false
}

// earningsAmount is stricter than moneyAmount: "makes 1000 requests" is
// load, so a bare number needs a period ("a year", "/h").
func earningsAmount(text string, loc []int) bool {
	if len(loc) > 2 && loc[2] >= 0 {
		return true
	}
	for _, m := range moneyToken.FindAllStringSubmatch(group(text, loc, 0), -1) {
		if m[1] != "" || m[3] != "" {
			return true
		}
	}
	return false
}

// notOtherUnion drops unions that are not trade unions.
func notOtherUnion(text string, loc []int) bool {
	s := strings.ToLower(text[loc[0]:loc[1]])
	for _, w := range []string{"credit union", "european union", "student union", "soviet union", "students' union", "students union"} {
		if strings.Contains(s, w) {
			return false
		}
	}
	return true
}
