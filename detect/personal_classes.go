package detect

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The rules in personal.go read curated terms. The rules here read a
// category by its class, so that a fact nobody listed is found by what it
// is: a medical word by its morphology (-itis, -osis, -ectomy, -oscopy,
// -therapy, the -ologist of a medical root), a drug by its stem (-statin,
// -pril, -olol, -oxetine …), an injury by a body part and what happened to
// it, and each category by its frames: "diagnosed with …", "treatment for
// the thyroid", "months sober", "having a baby", "sings in the church
// choir", "ran for city council", "member of <union>", "went on strike",
// "can't pay the loan", "took out a second mortgage", "asylum
// application". They were written from the classes, then checked against
// the dev half of memory/testdata/sensitive_statements_blind.json; its
// held-out half is only scored.

var (
	// medicalSuffixes end the names of conditions and procedures. Words
	// that end so and are not medical are in notMedical.
	medicalSuffixes = `(?:itis|osis|a?emia|omas?|opathy|opathies|algia|iasis|plegia|plegic|trophy|ectomy|ectomies|otomy|ostomy|oscopy|oscopies|plasty|therapy|therapies)`
	notMedical      = wordSet(`diagnosis prognosis hypnosis osmosis symbiosis metamorphosis apotheosis mitosis meiosis
		gnosis academia bohemia nostalgia aroma aromas diploma diplomas oklahoma tacoma paloma chroma idioma
		sonoma pomona dichotomy microscopy spectroscopy stereoscopy telescopy kaleidoscopy retail`)

	// medicalRoots take -ology and -ologist for a medical field and its
	// doctor: cardiology, the oncologist.
	medicalRoots = `(?:onc|cardi|dermat|neur|ur|gyn(?:a)?ec|endocrin|rheumat|gastroenter|ha?emat|nephr|pulmon|immun|audi|ophthalm|radi|hepat|proct|otolaryng|otorhinolaryng|psych|neuropsych|andr|perinat|allerg|rhin|laryng|angi|phleb|vener|sex|anaesthesi|anesthesi|path|obstetr|trichol)`
	// careProviders are the people and places of care.
	careProviders = []string{
		"doctor", "doctors", "gp", "dentist", "orthodontist", "surgeon", "midwife", "doula", "physician", "specialist",
		"paediatrician", "pediatrician", "obstetrician", "ob-gyn", "obgyn", "optometrist", "chiropractor", "osteopath",
		"physiotherapist", "therapist", "counsellor", "counselor", "nurse", "clinic", "hospital", "sleep clinic",
		"fertility clinic", "pain clinic", "memory clinic",
		"psychiatrist", "podiatrist", "physiatrist", "geriatrician", "allergist", "neurosurgeon", "urgent care",
	}
	// careEvents are the visits in which care is given.
	careEvents = []string{
		"appointment", "appointments", "follow-up", "follow up", "followup", "check-up", "checkup", "check up",
		"consultation", "consult", "session", "sessions", "visit", "visits", "referral", "scan", "scans",
	}

	// careVerbs lead to a visit: "sees", "has a follow-up with".
	careVerbs = `sees?|saw|seeing|seen\s+by|visits?|visited|visiting|goes\s+to|go\s+to|going\s+to|went\s+to|to\s+see|books?|booked|talks?\s+to|talking\s+to|referred\s+to|referral\s+to|under|waiting\s+for|waiting\s+to\s+see|(?:` + phrases(careEvents) + `)\s+(?:with|at|to)`
	// careVisitWords name the kind of a visit: "clinic visits", "a
	// dental appointment".
	careVisitWords = []string{
		"clinic", "hospital", "gp", "doctor", "doctor's", "doctors", "dental", "dentist", "medical", "physio", "therapy",
		"fertility", "prenatal", "antenatal", "maternity", "cancer", "chemo", "dialysis", "outpatient", "specialist",
		"psychiatric", "mental health", "blood", "smear",
	}

	// drugStems end generic drug names.
	drugStems = `(?:statins?|pril|sartan|olol|dipine|apine|prazole|azepam|azolam|oxetine|triptan|triptyline|pramine|gliptin|glutide|gliflozin|formin|lukast|tidine|umab|imab|ximab|zumab|tinib|cillin|mycin|cycline|floxacin|thyroxine|parin|xaban|gatran|afil|profen|codone|semide|thiazide|nisone|solone|cortisone|methasone|vudine|tegravir|ovir|avir|zolam|done)`

	// bodyParts are what an injury or an operation is of.
	bodyParts = []string{
		"hip", "hips", "knee", "knees", "back", "lower back", "spine", "shoulder", "shoulders", "neck", "heart", "lung",
		"lungs", "liver", "kidney", "kidneys", "thyroid", "eye", "eyes", "ear", "ears", "wrist", "wrists", "ankle",
		"ankles", "foot", "feet", "elbow", "jaw", "bladder", "bowel", "bowels", "colon", "prostate", "breast", "breasts",
		"cervix", "uterus", "womb", "ovaries", "ovary", "brain", "stomach", "gut", "sinuses", "tonsils", "gallbladder",
		"appendix", "acl", "ligament", "ligaments", "tendon", "tendons", "meniscus", "achilles", "rotator cuff", "pelvis",
		"hamstring", "retina", "cornea", "pancreas", "spleen", "disc", "vertebrae", "ribs", "collarbone", "skull",
		"cholesterol", "blood pressure", "blood sugar", "hormones", "iron levels", "vitamin d", "teeth", "wisdom teeth",
	}
	injuries = `(?:bad|injured|broken|fractured|sprained|torn|ruptured|dislocated|sore|weak|replaced|artificial|slipped|herniated|damaged|dodgy|busted|wonky|painful|arthritic|fused|prosthetic|failing|enlarged|inflamed|infected)`
	// treatments are what is done for a body part or a condition.
	treatments = `(?:medicine|medicines|medication|medications|meds|pills|tablets|injections?|shots|jabs|infusions?|drops|treatment|treatments|surgery|surgeries|an?\s+operation|operation|operations|op|procedure|physio|physiotherapy|rehab|scans?|x-?rays?|mri|ultrasound|biopsy|check-?ups?|blood\s+tests)`

	// medicalHeads end a noun phrase that names an illness: "the sugar
	// illness", "a rare genetic disorder".
	medicalHeads = `(?:illness|illnesses|disease|diseases|syndrome|disorder|disorders|infection|infections|sickness|tumou?rs?|cancer|allergy|allergies|injury|injuries|fracture|ulcers?|cysts?|hernia)`

	// activistGroups are political movements known by name.
	activistGroups = []string{
		"extinction rebellion", "just stop oil", "black lives matter", "blm", "antifa", "proud boys", "nra", "aclu",
		"planned parenthood", "sunrise movement", "fridays for future", "democratic socialists of america", "dsa",
		"moms for liberty", "occupy wall street", "greenpeace", "amnesty international", "letzte generation", "pro-life",
		"pro-choice", "anti-abortion", "stop the war coalition", "palestine action",
	}
	// politicalLeanings are sides a person is, read only as a noun ("a
	// staunch conservative") or at the end of a clause: "conservative
	// with estimates" is not a side.
	politicalLeanings = []string{
		"conservative", "liberal", "progressive", "centrist", "leftist", "lefty", "leftie", "right-winger", "left-winger",
		"social conservative", "neoliberal", "nationalist", "populist", "environmentalist", "feminist", "pro-life",
		"pro-choice", "tankie",
	}
	offices = `(?:(?:city|town|county|local|state|parish|district|borough|regional|school|village)\s+)?(?:council|office|mayor|parliament|congress|the\s+senate|senate|the\s+assembly|assembly|election|re-?election|governor|the\s+legislature|legislature|board\s+of\s+supervisors|school\s+board|alderman|mp|mep|the\s+bundestag|bundestag)`
	// politicalOffices are the seats a person holds: "is a local
	// councillor".
	politicalOffices = []string{
		"councillor", "councilor", "council member", "councilman", "councilwoman", "alderman", "alderwoman", "mayor",
		"mp", "mep", "senator", "state rep", "state representative", "congressman", "congresswoman", "assemblyman",
		"assemblywoman", "party candidate", "independent candidate", "election candidate", "poll worker",
		"election volunteer",
	}

	// tradeUnions are unions known by name. Ambiguous ones (Unite,
	// Prospect, Equity, Community) are matched in capitals only.
	tradeUnions = []string{
		"unison", "gmb", "ver.di", "verdi", "ig metall", "cwa", "teamsters", "uaw", "seiu", "afl-cio", "neu", "rcn", "bma",
		"cgt", "cfdt", "ucu", "pcs", "rmt", "aslef", "usdaw", "nasuwt", "nea", "aft", "iww", "cupe", "unifor", "usw", "ibew",
		"afscme", "ufcw", "nnu", "fnv", "ccoo", "eis", "bectu", "nurses union", "nurses' union", "teachers union",
		"teachers' union", "transport workers union", "rail union", "unite the union", "dgb", "ig bce", "gew", "cisl",
		"cgil", "uil", "opsu", "ctu", "cosatu", "sag-aftra", "writers guild", "wga", "nuj", "fbu", "pfa",
	}
	unionsInCapitals = `(?-i:Unite|Prospect|Equity)`

	// networkMembers and networks name a group of colleagues who share an
	// origin: "the Black employee network".
	networkMembers = `(?:employee|employees['’]?|staff|colleague|colleagues['’]?|workers['’]?|professionals['’]?|heritage|inclusion|equity)`
	networks       = `(?:network|erg|resource\s+group|affinity\s+group|group|society|association|forum|caucus|collective)`

	// pronounPair is the pronouns a person goes by: "she/her", "they/them",
	// "she/they"; not the generic "he/she".
	pronounPair = `(?:she\s*/\s*(?:hers?|they)|he\s*/\s*(?:him|his|they)|they\s*/\s*(?:them|theirs|she|he)|ze\s*/\s*(?:zir|hir|zem)|xe\s*/\s*(?:xem|xyr))(?:\s*/\s*[a-z]+)?\b`

	// hereditaryConditions are what a person carries a gene for: "a
	// carrier for Tay-Sachs", "carries the Huntington's gene".
	hereditaryConditions = []string{
		"tay-sachs", "cystic fibrosis", "sickle cell", "sickle cell disease", "sickle cell anaemia", "sickle cell anemia",
		"thalassaemia", "thalassemia", "huntington's", "huntington's disease", "haemophilia", "hemophilia",
		"spinal muscular atrophy", "fragile x", "duchenne", "muscular dystrophy", "gaucher", "canavan", "brca", "brca1",
		"brca2", "lynch syndrome", "factor v leiden", "haemochromatosis", "hemochromatosis", "apoe4",
	}

	// healthAbbreviations are conditions known by their letters, read in
	// any case: endsAbbreviation tells "has ms" from "has MS Teams open".
	healthAbbreviations = `(?:ms|t1d|t2d|asd|cfs|me/cfs|ibd|copd|bpd|mdd|ckd|mnd|als|dvt|eds|heds|pmdd|pcos|gad|arfid|ocd|ptsd|adhd|hiv)`

	// legalStates are what a person is in law: "undocumented", "an
	// ex-offender", "a refugee".
	legalStates = []string{
		"undocumented", "a refugee", "refugee", "an asylum seeker", "asylum seeker", "an ex-offender", "ex-offender",
		"a former offender", "a convicted felon", "convicted felon", "a felon", "an ex-con", "ex-con", "an ex-prisoner",
		"ex-prisoner", "on parole", "out on parole", "stateless", "an illegal immigrant", "an undocumented immigrant",
		"undocumented immigrant",
	}

	// welfare is what a person lives on: "on Universal Credit".
	welfare = []string{
		"benefits", "welfare", "universal credit", "food stamps", "income support", "disability benefits",
		"housing benefit", "jobseeker's allowance", "unemployment benefits", "sickness benefits", "snap benefits",
		"the dole", "social assistance",
	}

	worshipPlaces = []string{
		"church", "mosque", "masjid", "synagogue", "shul", "temple", "gurdwara", "mandir", "chapel", "congregation",
		"kingdom hall", "cathedral", "ashram", "monastery", "sangha",
	}
	religiousRoles = []string{
		"deacon", "deaconess", "church elder", "altar server", "altar boy", "lay preacher", "lay minister",
		"imam", "rabbi", "priest", "pastor", "vicar", "cantor", "churchwarden", "church warden", "sunday school teacher",
		"bell ringer", "muezzin", "granthi", "nun", "monk", "missionary", "choir member", "youth pastor", "chaplain",
		"bishop", "catechist",
	}
)

// personalClassDetectors read the personal categories by class; see the
// comment at the top of this file.
var personalClassDetectors = []detector{
	// Health, by morphology: a word that names a condition or a
	// procedure by its ending, used of a person (plainTerm drops "the
	// arthritis research app").
	{name: "medical term", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, notListed(notMedical), aboutAPerson),
		gate: gate{words: []string{"itis", "osis", "emia", "oma", "pathy", "pathies", "algia", "iasis", "pleg", "troph", "ectom", "otomy", "ostomy", "oscop", "plasty", "therap"}},
		re:   regexp.MustCompile(`(?i)\b[a-z]{2,}` + medicalSuffixes + `\b`)},
	// A drug by its stem, taken: "takes atorvastatin", "on ramipril".
	{name: "medication by stem", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, notListed(notDrugs)),
		gate: gate{words: []string{"mg", "mcg", "µg", "milligram", "microgram", "statin", "pril", "sartan", "olol", "pine", "prazole", "zepam", "zolam", "oxetine", "triptan", "triptyline", "pramine", "gliptin", "glutide", "gliflozin", "formin", "lukast", "tidine", "mab", "tinib", "cillin", "mycin", "cycline", "floxacin", "thyroxine", "parin", "xaban", "gatran", "afil", "profen", "codone", "semide", "thiazide", "nisone", "solone", "cortisone", "methasone", "vudine", "vir", "done", "pam"}},
		re: regexp.MustCompile(`(?i)\b(?:takes?|took|taking|on|started|starts|starting|stopped|stopping|needs?|injects?|uses?|prescribed|switched\s+to|came\s+off|coming\s+off|off|given|gets|getting|been\s+on|back\s+on)\s+(?:(?:a|an|some|daily|regular|new|his|her|their|my|the|low-dose|high-dose|prescription|prescribed|extra|strong|weekly|\d+\s?mg(?:\s+of)?)\s+){0,3}[a-z]{2,}` + drugStems + `\b` +
			// A dose, and what it is of: "takes 20mg of citalopram".
			`|\b(?:takes?|took|taking|on|prescribed|up\s+to|down\s+to|upped\s+to|increased\s+to|reduced\s+to)\s+(?:(?:a|his|her|their|my|the)\s+)?(?:\w+\s+)?\d+(?:\.\d+)?\s?(?:mg|mcg|µg|milligrams?|micrograms?)\b(?:\s+of\s+[a-z][\w-]*\b)?`)},
	// A specialist or a place of care, visited: "has a follow-up with
	// the oncologist", "sees a dermatologist", "needs mornings free for
	// clinic visits".
	{name: "specialist visit", category: CategoryHealth, reason: healthReason, valid: plainTerm,
		gate: gate{words: []string{"ologist", "iatrist", "ology"}},
		re: regexp.MustCompile(`(?i)(?:\b(?:` + careVerbs + `)\s+(?:(?:a|an|the|his|her|their|my|new|private|regular|weekly|monthly)\s+){0,2}(?:` + medicalRoots + `ologists?|(?:psych|pod|phys)iatrists?)` +
			`|\b` + medicalRoots + `ology\s+(?:` + phrases(careEvents) + `|clinic|ward))\b`)},
	{name: "care visit", category: CategoryHealth, reason: healthReason, valid: plainTerm,
		gate: gate{terms: terms(careVisitWords, careProviders)},
		re: regexp.MustCompile(`(?i)(?:\b(?:` + careVerbs + `)\s+(?:(?:a|an|the|his|her|their|my|new|private|regular|weekly|monthly)\s+){0,2}` + phrases(careProviders) +
			`|\b(?:in|into|from)\s+(?:the\s+)?hospital` +
			`|\b(?:has|have|had|having|needs?|for|during|after|around|attends?|with|his|her|their|my|weekly|regular|monthly|books?|booked|off\s+for|out\s+for|early\s+for|free\s+for)\s+(?:(?:a|an|the|some|weekly|regular|monthly|early|his|her|their|my)\s+)?` + phrases(careVisitWords) + `\s+(?:` + phrases(careEvents) + `|tests?|work)` +
			`)\b`)},
	// A condition that no list names, by what it is called: "has the
	// sugar illness", "was diagnosed with a rare genetic disorder".
	{name: "illness", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, aboutAPerson, notSoftware, notIdiomCase),
		gate: gate{words: []string{"ill", "disease", "syndrome", "disorder", "infection", "deficien", "sick", "tumo", "cancer", "allerg", "injur", "fracture", "ulcer", "cyst", "hernia", "diagnos"}},
		re: regexp.MustCompile(`(?i)\b(?:(?:has|have|had|having|got|gets|getting|caught|suffers?\s+from|suffered\s+from|suffering\s+from|lives?\s+with|living\s+with|struggles?\s+with|struggling\s+with|recovering\s+from|recovered\s+from|treated\s+for|treatment\s+for|in\s+remission\s+from|off\s+(?:work\s+)?with|home\s+with|in\s+bed\s+with|in\s+hospital\s+with|born\s+with)\s+(?:(?:a|an|the|some|rare|serious|chronic|genetic|autoimmune|[\w'’-]+)\s+){0,3}` + medicalHeads +
			`|diagnosed\s+(?:with|as\s+having)\s+\w+` +
			`|(?:got|gets|getting|received|receives)\s+(?:(?:a|an|the|his|her|their|my)\s+)?diagnosis)\b`)},
	// A body part and what happened to it, or what is done for it: "a bad
	// hip", "operation on the hip", "medicine for the thyroid".
	{name: "injury or treatment", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, aboutAPerson, notBodyPartThing),
		gate: gate{terms: terms(nil, bodyParts)},
		re: regexp.MustCompile(`(?i)\b(?:` + injuries + `\s+(?:(?:left|right|lower|upper)\s+)?` + phrases(bodyParts) + `|(?:high|low|raised)\s+(?:cholesterol|blood\s+pressure|blood\s+sugar|iron(?:\s+levels)?|vitamin\s+d|thyroid\s+levels)` +
			`|` + phrases(bodyParts) + `\s+(?:injury|injuries|replacement|surgery|operation|problems?|issues?|condition|fracture|transplant|infection|trouble|cancer|disease|failure|stones?)` +
			`|` + treatments + `\s+(?:on|for|to|of)\s+(?:(?:the|his|her|their|my|a|an|both|left|right|lower|upper|high|low)\s+){0,2}` + phrases(bodyParts) + `)\b`)},
	// Pregnancy, whatever the words: "having a baby in March", "baby due
	// in April", "maternity leave", "second trimester"; and a birth ("had
	// a baby"), a season a baby is expected in ("is expecting in the
	// spring") and feeding one ("breastfeeding").
	{name: "pregnancy", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, notBabyThing),
		gate: gate{terms: terms([]string{"baby", "babies", "child", "twins", "triplets", "trimester", "maternity", "pregnant", "pregnancy", "due", "morning", "prenatal", "antenatal", "postnatal", "postpartum", "conceive", "conceiving", "expecting", "miscarried", "breastfeeding", "breastfeeds", "breast", "lactation", "milk"})},
		re: regexp.MustCompile(`(?i)\b(?:(?:having|had|has\s+had|expecting|due\s+to\s+have|going\s+to\s+have|trying\s+for|trying\s+to\s+have|lost|gave\s+birth\s+to)\s+(?:(?:a|an|their|his|her|our|the|first|second|third|fourth|another|new)\s+){0,2}(?:baby|child|twins|triplets)` +
			`|` + be + `\s+expecting(?:\s+again)?\s+(?:in|this|next|around|by)\s+(?:the\s+)?(?:(?:early|late|mid)[-\s]?)?(?:spring|summer|autumn|fall|winter|new\s+year|january|february|march|april|may|june|july|august|september|october|november|december)` +
			`|breast[-\s]?feed(?:ing|s)?|(?:uses?|using|needs?|books?|booked|requests?|wants?)\s+(?:the\s+|a\s+)?lactation\s+(?:room|breaks?|space|pod)|expressing\s+(?:breast\s+)?milk` +
			`|(?:baby|twins|triplets)\s+(?:is\s+|are\s+)?due|(?:his|her|their|my)\s+due\s+date|(?:first|second|third|last|final)\s+trimester|maternity\s+leave|morning\s+sickness` +
			`|(?:pre|ante|post)[-\s]?natal\s+(?:appointments?|classes|class|scans?|care|checks?|check-?ups?|depression)|postpartum|trying\s+to\s+conceive|miscarried)\b`)},
	// Addiction and recovery: "18 months sober", "relapsed".
	{name: "sobriety", category: CategoryHealth, reason: healthReason, valid: plainTerm,
		gate: gate{terms: terms([]string{"sober", "sobriety", "relapse", "relapsed", "relapsing", "clean"})},
		re:   regexp.MustCompile(`(?i)\b(?:(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|eighteen|a\s+few|several|many)\s+(?:days?|weeks?|months?|years?)\s+(?:sober|clean)|(?:` + be + `|got|getting|stayed|staying|stays?|been)\s+(?:(?:now|still|newly|recently)\s+)?sober|(?:has|have|had)\s+relapsed|relapsed|relapsing|(?:his|her|their|my)\s+sobriety)\b`)},

	// Health by absence: leave taken for an illness, a phased return, a
	// fit note, occupational health.
	{name: "medical leave", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: terms([]string{"phased", "signed", "sickness", "note", "occupational", "breakdown", "burnout", "burn", "operation", "procedure", "injury", "illness", "accident", "collapse", "surgery", "stress", "exhaustion", "mental", "health", "medical"})},
		re: regexp.MustCompile(`(?i)\b(?:(?:on|started|starts|began)\s+(?:a\s+)?phased\s+return|phased\s+return\s+to\s+work|signed\s+off\s+(?:sick|work|for\s+\w+\s+weeks?)` +
			`|signed\s+off\s+(?:work\s+|sick\s+)?(?:with|because\s+of|due\s+to|for)\s+(?:(?:a|an|his|her|their|my|the|work-related|severe|acute)\s+)?(?:stress|exhaustion|burnout|burn-out|` + phrases(conditions) + `)` +
			`|(?:on|took|taking|takes|off|away|out|absent|been\s+off|was\s+off)\s+(?:(?:\w+|\d+)\s+){0,3}?(?:leave|time\s+off|off|work|weeks?|months?|days?)\s+(?:for|after|because\s+of|due\s+to|following|with)\s+(?:(?:a|an|his|her|their|my|the|major|minor|serious|bad)\s+)?(?:breakdown|burnout|burn-out|operation|procedure|injury|illness|accident|collapse|surgery|stress|exhaustion|mental\s+health|health\s+reasons|medical\s+reasons)` +
			`|sickness\s+absence|(?:sick|fit)\s+note|occupational\s+health\s+(?:referral|assessment|review|appointment))\b`)},

	// Sex life and partners that say an orientation: "lives with his
	// husband", "in an open relationship".
	{name: "sex life", category: CategorySexuality, reason: "sexual orientation or gender identity", valid: plainTerm,
		gate: gate{terms: terms([]string{"husband", "boyfriend", "fiance", "fianc", "wife", "girlfriend", "fiancee", "polyamorous", "polyamory", "monogamous", "throuple", "swinger", "swingers", "kink", "bdsm", "celibate", "grindr", "scruff", "attracted", "pronouns", "deadname", "deadnamed", "dead", "dates", "relationship", "marriage", "they", "them", "ze", "xe"})},
		re: regexp.MustCompile(`(?i)\b(?:his\s+(?:husband|boyfriend|fianc[eé])|her\s+(?:wife|girlfriend|fianc[eé]e)\b(?:\s|$|[,.;])` +
			`|(?:in|into)\s+(?:an?\s+)?(?:open|polyamorous|poly|non-?monogamous)\s+(?:relationship|marriage)|polyamorous|polyamory|non-?monogamous|throuple|swingers?|bdsm|celibate` +
			`|(?:uses?|using|on)\s+(?:grindr|scruff)|attracted\s+to\s+(?:men|women|both|other\s+(?:men|women))|dates\s+(?:both\s+)?(?:men\s+and\s+women|women\s+and\s+men)` +
			`|(?:uses?|goes\s+by|prefers)\s+(?:the\s+)?(?:they/them|ze/zir|ze/hir|xe/xem|they\s+and\s+them)(?:\s+pronouns)?|dead-?named?)`)},
	// Pronouns a person gives: "Pronouns: they/them", "prefers she/her
	// pronouns". Every match holds a pair with its slash.
	{name: "pronouns", category: CategorySexuality, reason: "sexual orientation or gender identity", valid: plainTerm,
		gate: gate{terms: []string{"she", "he", "they", "ze", "xe"}, words: []string{"/"}},
		re:   regexp.MustCompile(`(?i)\b(?:` + pronounPair + `\s+pronouns|pronouns\s*(?:are|:|=|-|–|—)?\s*` + pronounPair + `|(?:uses?|goes\s+by|prefers)\s+` + pronounPair + `)`)},

	// Legal sanctions beyond a conviction: a tag, bail, a driving ban, an
	// investigation.
	{name: "legal sanction", category: CategoryLegal, reason: "a personal legal matter (arrest, conviction, lawsuit)", valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: terms([]string{"tag", "monitor", "community", "offenders", "offender", "caution", "cautioned", "driving", "drink", "drunk", "licence", "license", "banned", "ordered", "investigation", "investigated", "criminal", "charges"})},
		re:   regexp.MustCompile(`(?i)\b(?:electronic\s+tag|ankle\s+monitor|community\s+service(?:\s+order)?|sex\s+offenders?\s+register|police\s+caution|(?:was|got|been|is)\s+cautioned\s+by\s+(?:the\s+)?police|(?:drink|drunk)[-\s]driving|driving\s+ban|banned\s+from\s+driving|lost\s+(?:his|her|their|my)\s+(?:driving\s+)?licen[cs]e|court[-\s]ordered|criminal\s+(?:charges?|case|trial|investigation)|(?:under|facing|faces)\s+(?:a\s+)?(?:criminal\s+|police\s+|tax\s+)?investigation|(?:is|was|being)\s+investigated\s+by\s+(?:the\s+)?(?:police|fbi|irs|hmrc|tax\s+office|tax\s+authorities|sec))\b`)},

	// Religion by community: "sings in the church choir", "volunteers at
	// the temple", "is a deacon"; and a faith's family, said of a person as
	// an origin's is (its group 1: "comes from a Catholic family", "married
	// into a Sikh family", "grew up in a Muslim household"), where "the" is
	// left out: "the Christian family" may be a surname's.
	{name: "faith community", category: CategoryReligion, reason: "religious belief", valid: familyOrElse(plainTerm),
		gate: gate{terms: terms([]string{"bible", "quran", "qur", "koran", "torah", "talmud", "gita", "scripture", "scriptures", "granth", "mormon"}, worshipPlaces, religiousRoles, religiousIdentities)},
		re: regexp.MustCompile(`(?i)\b(?:(?:sings?|singing|sang|plays?|playing|played|volunteers?|volunteering|volunteered|helps?|helping|serves?|serving|teaches|teaching|active|involved|worships?|worshipping|married|bapti[sz]ed|confirmed|member)\s+(?:[\w'’]+\s+){0,2}?(?:in|at|with|for|of)\s+(?:(?:the|a|an|his|her|their|my|local|our)\s+)?` + phrases(worshipPlaces) +
			`|` + phrases(worshipPlaces) + `\s+(?:choir|youth\s+group|band|council|community|elders?|services?|retreat|camp|group)` +
			`|(?:` + be + `|serves\s+as|ordained\s+as|trained\s+as)\s+(?:(?:a|an|the|local|parish|ordained)\s+){0,2}` + phrases(religiousRoles) +
			`|(?:attends?|attended|attending|goes\s+to|went\s+to|observes?|observed|celebrates?|celebrated|member\s+of|part\s+of|active\s+in|off\s+for|leave\s+for|fasts?\s+for)\s+(?:(?:the|a|an|his|her|their|local|weekly)\s+)?` + phrases(religiousIdentities) + `\s+(?:services?|mass|meetings?|worship|prayers|community|congregation|youth\s+group|retreat|festival|holidays?|holy\s+days|new\s+year|fast)` +
			`|(?:reads|studies|reading|studying|recites|reciting|memori[sz]es|memori[sz]ing)\s+(?:(?:the|a|his|her|their)\s+)?(?:bible|quran|qur['’]an|koran|torah|talmud|gita|bhagavad\s+gita|guru\s+granth\s+sahib|book\s+of\s+mormon|scriptures?)\b(?:\s+(?:daily|every|each|before|after|at))?` +
			`|((?:from|into|in|of|to)\s+(?:(?:a|an|my|his|her|their)\s+)?(?:(?:big|large|devout|devoutly|strict|strictly|observant|practi[cs]ing|very|deeply|traditional|conservative)\s+){0,2}` + phrases(religiousIdentities) + `\s+(?:family|families|household|background)))\b`)},

	// Politics by act: protests, a named movement, a seat, a run for
	// office, a side held as a noun.
	{name: "political act", category: CategoryPolitics, reason: "political opinion or affiliation", valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: terms([]string{"protest", "protests", "protested", "protesting", "demonstration", "demonstrations", "rally", "rallies", "march", "marches", "marched", "marching", "ran", "runs", "running", "stood", "stands", "standing", "elected", "campaigning", "petition", "picket"}, activistGroups, politicalOffices)},
		re: regexp.MustCompile(`(?i)\b(?:(?:goes\s+to|go\s+to|going\s+to|went\s+to|attends?|attended|attending|joins?|joined|joining|organi[sz]es|organi[sz]ed|organi[sz]ing|takes\s+part\s+in|took\s+part\s+in|was\s+at|marche[sd]?\s+(?:in|at|with)|marching\s+(?:in|at|with)|speaks?\s+at|spoke\s+at)\s+(?:(?:the|a|an|his|her|their|local|weekly|big|climate|anti-?\w+|pro-?\w+|\w+)\s+){0,2}(?:protests?|demonstrations?|rallies|rally|marches|vigils?)` +
			`|(?:march(?:es|ed|ing)?|protest(?:s|ed|ing)?|demonstrat(?:es|ed|ing)|rall(?:y|ies|ied|ying)|campaign(?:s|ed|ing)?|petition(?:s|ed|ing)?|lobb(?:y|ies|ied|ying))\s+against\s+(?:the\s+)?\w+` +
			`|(?:member\s+of|joined|joins|with|volunteers?\s+(?:for|with)|volunteered\s+(?:for|with)|donates?\s+to|donated\s+to|marche[sd]?\s+with|supports?|supported|active\s+in|in)\s+(?:the\s+)?` + phrases(activistGroups) +
			`|(?:ran|runs|running|stood|stands|standing|campaigning|campaigns?|campaigned)\s+(?:for|as)\s+(?:(?:a|an|the|his|her|local)\s+)?` + offices + `|(?:ran|runs|running|stood|stands|standing)\s+as\s+(?:an?\s+)?(?:independent|candidate)|(?:elected|re-?elected)\s+(?:to|as)\s+(?:(?:a|an|the)\s+)?(?:\w+\s+)?(?:council|councillor|councilor|mayor|parliament|congress|senate|assembly|mp|school\s+board)` +
			`|(?:` + be + `|serves\s+as|elected\s+as)\s+(?:(?:a|an|the|local|city|town|county|parish|district|state|borough|elected|former|current|sitting|labour|tory|conservative|green|democratic|republican|spd|cdu|\w+)\s+){0,2}` + phrases(politicalOffices) + `)\b`)},
	{name: "political leaning", category: CategoryPolitics, reason: "political opinion or affiliation", valid: endsClause,
		gate: gate{terms: terms([]string{"politically", "vote", "votes", "voted", "voting", "pro", "anti"}, politicalLeanings)},
		re: regexp.MustCompile(`(?i)\b(?:` + be + `\s+(?:(?:a|an|staunch|lifelong|life-long|committed|proud|die-hard|diehard|card-carrying|hardcore|devoted|self-described|self-declared|true|real|classic|old-school|bleeding-heart|fiscal|social|socially|fiscally|politically)\s+){1,3}` + phrases(politicalLeanings) +
			`|politically\s+(?:\w+\s+)?` + phrases(politicalLeanings) + `|` + be + `\s+(?:(?:very|quite|fairly|pretty|broadly|socially|fiscally)\s+)?` + phrases(politicalLeanings) + `\s+politically|` + be + `\s+(?:(?:very|strongly|firmly|fiercely|openly|vocally|quite|staunchly)\s+)?(?:pro|anti)-(?:life|choice|abortion|gun|guns|immigration|brexit|eu|trump|israel|palestine|palestinian|vax|monarchy|establishment)` + `|(?:votes?|voted|voting)\s+(?-i:Green|Labour|Labor|Tory|Conservative|Liberal|Democrat|Republican|Reform|Left|Linke|SNP|UKIP|GOP|SPD|CDU|FDP|AfD|Leave|Remain)|(?:votes?|voted|voting)\s+(?:left|right|left-wing|right-wing|far-left|far-right|tactically|blue|red))\b`)},

	// Trade unions by name, and strikes.
	{name: "union by name", category: CategoryUnion, reason: "trade union membership", valid: all(plainTerm, notNamePart),
		gate: gate{terms: terms([]string{"unite", "prospect", "equity", "community", "strike", "strikes", "striking", "struck", "picket", "picketing", "walkout", "dues"}, tradeUnions)},
		re: regexp.MustCompile(`(?i)(?:\b(?:member\s+of|joined|joins|join|belongs?\s+to|rep\s+for|representative\s+for|steward\s+for|organi[sz]er\s+for|organi[sz]es\s+for|pays?\s+(?:\w+\s+)?dues\s+to|paid\s+(?:\w+\s+)?dues\s+to|in|active\s+in|card\s+for)\s+(?:the\s+)?(?:` + phrases(tradeUnions) + `|` + unionsInCapitals + `)` +
			`|(?:` + phrases(tradeUnions) + `|` + unionsInCapitals + `)\s+(?:rep|representative|member|steward|organi[sz]er|branch|dues|card|shop\s+steward|delegate|officer|activist)` +
			`|\b(?:went|goes|go|going|was|were|is|are|been|walked\s+out)\s+on\s+strike|\b(?:joined|joins|on|walked|walks|stood\s+on)\s+(?:the\s+)?picket\s+lines?|\bpicketing|\bstrike\s+(?:ballot|pay|fund|vote|action)|\b(?:joined|joins|took\s+part\s+in|takes\s+part\s+in)\s+(?:the\s+)?(?:\w+\s+)?(?:strike|walkout))\b`)},

	// Finances by act: can't pay, borrows, takes out a loan, is on
	// benefits, loses money gambling.
	{name: "money strain", category: CategoryFinances, reason: "personal debt", valid: all(plainTermOrOf, aboutAPerson, notAClaimThat),
		gate: gate{terms: terms([]string{"pay", "paying", "make", "afford", "cover", "meet", "late", "behind", "missed", "misses", "missing", "defaulted", "defaults", "loan", "loans", "mortgage", "remortgage", "remortgaged", "overdraft", "borrow", "borrows", "borrowed", "borrowing", "denied", "refused", "benefits", "welfare", "stamps", "credit", "allowance", "security", "gambling", "betting", "gambles", "gambled", "bets", "lost", "loses", "evicted", "eviction", "foreclosure", "repossessed", "bailiffs", "collectors", "pawned", "income", "support"})},
		re: regexp.MustCompile(`(?i)\b(?:(?:can['’]?t|cannot|can\s+not|couldn['’]?t|could\s+not|unable\s+to|struggl(?:es|ing|ed)\s+to|fail(?:s|ed|ing)?\s+to|late\s+(?:on|with)|behind\s+(?:on|with)|defaulted\s+on|defaults\s+on)\s+(?:to\s+)?(?:(?:pay|paying|make|making|afford|cover|meet)\s+)?(?:(?:the|his|her|their|my|a|this|last|month['’]?s|monthly)\s+){0,2}(?:\w+\s+)?(?:rent|mortgage|loan|loans|bills|debts|payments?|installments?|instalments?|repayments?|credit\s+card|child\s+support|alimony|tax\s+bill|car\s+payments?)` +
			`|(?:took|takes|taking|take|has\s+taken)\s+out\s+(?:(?:a|an|another|second|third|new|personal|payday|bank|car|home\s+equity|big|huge)\s+){0,2}(?:loan|mortgage|remortgage|overdraft|credit\s+line|line\s+of\s+credit|advance)` +
			`|remortgag(?:ed|ing|es)|borrow(?:s|ed|ing)?\s+(?:(?:some|the|a\s+lot\s+of)\s+)?(?:money|cash|[$€£]\s?\d[\d,.]*k?|\d[\d,.]*k?\s+(?:dollars|euros|pounds|grand))\s+from` +
			`|(?:denied|refused|turned\s+down\s+for|rejected\s+for|declined\s+for)\s+(?:an?\s+)?(?:mortgage|loan|credit\s+card|credit|overdraft)` +
			`|missed\s+(?:(?:a|another|his|her|their|my|two|three|several)\s+)?(?:rent|mortgage|loan|car|credit\s+card)\s+payments?` +
			`|(?:on|receives?|receiving|received|claims?|claiming|claimed|gets|getting|lives\s+on|living\s+on|applied\s+for|applying\s+for)\s+(?:disability|unemployment|housing|child|welfare|state|sickness|jobseeker['’]?s?|incapacity|carer['’]?s?)\s+(?:benefits?|allowance|payments|insurance)` +
			`|(?:(?:is|are|was|were|been|lives|living|went|goes)\s+on|claims?|claiming|claimed|receives?|receiving|applied\s+for|applying\s+for)\s+(?:benefits|welfare|food\s+stamps|universal\s+credit|income\s+support)` +
			`|(?:gambling|betting)\s+(?:debts?|problem|problems|addiction|habit|losses)|gambl(?:es|ed|ing)\s+(?:away|heavily|a\s+lot|online|on\s+\w+)|lost\s+(?:about\s+|around\s+|over\s+|nearly\s+|almost\s+)?[$€£]?\s?\d[\d,.]*\s*(?:k|grand|thousand|dollars|euros|pounds)?\s+(?:on|at|in|gambling|betting)\s+(?:(?:the|sports|online)\s+)?(?:bets?|betting|gambling|poker|casino|slots|crypto|stocks|horses|races)` +
			`|(?:got|getting|was|were|being|is|are)\s+evicted|(?:facing|faces)\s+(?:eviction|foreclosure|repossession)|(?:house|home|car|flat)\s+(?:was|got|is\s+being)\s+repossessed|(?:chased|hounded|visited)\s+by\s+(?:debt\s+collectors|bailiffs)|debt\s+collectors|bailiffs|pawned\s+(?:his|her|their|my)` +
			`|(?:to|helps?|help)\s+(?:cover|pay(?:\s+off)?|clear)\s+(?:(?:his|her|their|my|the|some)\s+)?(?:medical\s+bills|debts?|student\s+loans?|credit\s+card\s+debt|gambling\s+debts|arrears))\b`)},

	// Assets a person holds: "has 200k in an index fund", "owns two rental
	// flats", "inherited a house".
	{name: "holdings", category: CategoryFinances, reason: "personal savings or balance", valid: all(moneyAmount, aboutAPerson, notBusinessMoney),
		gate: gate{terms: terms([]string{"savings", "account", "isa", "pension", "portfolio", "stocks", "shares", "crypto", "bitcoin", "fund", "funds", "inherited", "inheritance", "trust", "invested", "investments", "accounts", "ira", "bonds"}), minDigits: 1},
		re:   regexp.MustCompile(`(?i)\b(?:(?:ha(?:s|ve|d)|holds?|keeps?|inherited|invested|put|saved|owns?)\s+` + money + `\s+(?:in|into|worth\s+of)\s+(?:(?:his|her|their|my|a|an|the)\s+)?(?:\w+\s+)?(?:savings|accounts?|isa|ira|pension|portfolio|stocks|shares|crypto|bitcoin|index\s+funds?|funds?|bonds|investments|trust)|(?:inherited|inheritance\s+of)\s+` + money + `)`)},

	// Legal matters by proceeding: immigration, asylum, courts.
	{name: "legal proceeding", category: CategoryLegal, reason: "a personal legal matter (arrest, conviction, lawsuit)", valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: terms([]string{"asylum", "immigration", "deportation", "deported", "refugee", "visa", "residency", "residence", "permit", "citizenship", "overstayed", "custody", "divorce", "court", "tribunal", "trial", "lawyer", "attorney", "solicitor", "barrister", "sued", "lawsuit", "hearing", "bail", "alimony", "settlement", "support"})},
		re: regexp.MustCompile(`(?i)\b(?:asylum\s+(?:application|claim|case|seeker|hearing|decision|appeal|interview|request)|(?:immigration|deportation|removal)\s+(?:lawyer|attorney|solicitor|case|hearing|status|appeal|proceedings|order|detention|tribunal|court)` +
			`|(?:lawyer|attorney|solicitor|barrister|advocate)\s+(?:for|on|in)\s+(?:(?:the|his|her|their|my)\s+)?(?:immigration|asylum|divorce|custody|criminal|dui)|(?:immigration|divorce|custody|criminal|family|defen[cs]e|employment|dui)\s+(?:lawyer|attorney|solicitor|barrister|case|proceedings|settlement|tribunal|hearing)` +
			`|(?:refugee|residency|immigration|citizenship)\s+(?:status|application|appeal|case)|(?:residence|residency|work)\s+permit\s+(?:expires|expiring|expired|runs\s+out|was\s+(?:refused|denied|revoked)|renewal|application)` +
			`|visas?\s+(?:expires|expiring|expired|runs\s+out|ran\s+out|was\s+(?:refused|denied|revoked|rejected)|is\s+(?:expiring|running\s+out)|overstay|(?:is\s+|still\s+)?pending)|pending\s+visa|overstay(?:ed|ing)?\s+(?:(?:a|his|her|their|the)\s+)?visa|(?:facing|faces|threatened\s+with)\s+deportation|seeking\s+asylum|(?:applied|applying)\s+for\s+asylum|claim(?:ed|ing|s)?\s+asylum` +
			`|custody\s+(?:fight|battle|case|hearing|dispute|arrangement|order)|(?:has|have|had|having)\s+(?:a\s+)?court\s+(?:on|next|tomorrow|today|this|date|case|hearing|appearance)|(?:appears?|appearing|appeared|due)\s+in\s+court|(?:being|was|been|got|is)\s+sued|(?:out\s+on|released\s+on|granted)\s+bail|(?:pays?|paid|paying|owes?|owed)\s+(?:\w+\s+)?(?:alimony|child\s+support))\b`)},

	// Health, as a patient: "is a cancer patient", "Cancer patient;
	// mornings are hard" ("a cancer patient advocate" and "the cancer
	// patient portal" are a role and a product, which plainTerm drops).
	{name: "patient", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, headTerm(conditions)),
		gate: gate{terms: terms([]string{"patient", "sufferer"})},
		re:   clauseRule(`(?i)(?:\b` + be + `\s+(?:(?:now|also|still|currently|a\s+former)\s+)?(?:a|an)\s+|` + clauseStart + `(?:(?:a|an)\s+)?)(?:(?:mild|severe|chronic|long-term|terminal|stage\s+[0-4iv]+|type\s+[12]|breast|lung|skin|prostate|bowel|brain)\s+){0,2}` + phrases(conditions) + `\s+(?:patient|sufferer)\b`)},
	// Genetic data is health: a gene or a mutation a person carries, or a
	// hereditary condition they are a carrier of.
	{name: "genetic", category: CategoryHealth, reason: healthReason, valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: []string{"gene", "genes", "mutation", "mutations", "variant", "allele", "trait", "carrier"}},
		re: regexp.MustCompile(`(?i)\b(?:(?:carr(?:y|ies|ying|ied)|ha(?:s|ve|d)|inherited|tested\s+positive\s+for|positive\s+for)\s+(?:(?:a|an|the|one|two|his|her|their|my|faulty|defective|mutated|recessive|dominant)\s+){0,2}(?:` + phrases(hereditaryConditions) + `\s+(?:gene|genes|mutation|mutations|variant|allele|trait)|(?-i:[A-Z][A-Za-z0-9'’-]*)\s+(?:gene|genes|mutation|mutations|gene\s+mutation|gene\s+variant|allele))` +
			`|(?:` + be + `\s+)?(?:a|an)\s+(?:(?:genetic|known|confirmed)\s+)?carrier\s+(?:for|of)\s+(?:the\s+)?` + phrases(hereditaryConditions) +
			`|` + phrases(hereditaryConditions) + `\s+carrier)\b`)},
	// A condition known by its letters: "has MS", "has T1D and ADHD".
	{name: "health abbreviation", category: CategoryHealth, reason: healthReason, valid: endsAbbreviation,
		gate: gate{terms: []string{"has", "have", "had", "having", "diagnosed", "live", "lives", "living", "suffer", "suffers", "my", "his", "her", "their"}},
		re:   regexp.MustCompile(`(?i)\b(?:has|have|had|having|diagnosed\s+with|lives?\s+with|living\s+with|suffers?\s+from|my|his|her|their)\s+(?:(?:mild|severe|chronic|relapsing|progressive|type\s+[12])\s+)?(?:[\w'’-]+\s+(?:and|&)\s+)?` + healthAbbreviations + `\b`)},

	// Ethnic origin by its frames: descent, heritage, roots ("is of
	// Pakistani descent", "proud of her Kurdish heritage", "has Nigerian
	// roots", "is ethnically Chinese"), where the origin is a named one in
	// any case or a capitalised word, and what has it is a person
	// (heritageOfAPerson: "Linux has Finnish roots" is a product's); a known origin's family, in any case
	// ("comes from a Roma family", "born into a traveller family", "from a
	// Black family"; its group 1: a traveller who travels has no such
	// family, and "the Black family" is a surname's); and a network of
	// colleagues who share it ("member of the Black employee network").
	{name: "ethnic origin", category: CategoryEthnicity, reason: "racial or ethnic origin", valid: familyOrElse(plainTerm, aboutAPerson, rootsOfAPeople, heritageOfAPerson),
		gate: gate{terms: []string{"descent", "heritage", "ancestry", "extraction", "origin", "ethnicity", "background", "ethnically", "ethnic", "racial", "family", "families", "household", "roots"}},
		re: regexp.MustCompile(`(?i)\b(?:(?:` + be + `|born|family\s+(?:is|are|was|were)|parents\s+are|person|woman|man|someone|comes\s+from\s+a\s+family)\s+of\s+(?:(?:` + namedOrigin + `|(?-i:[A-Z])[\w'’-]*)\s+){1,3}?(?-i:descent|heritage|ancestry|extraction|origin|ethnicity|background)` +
			`|(?:has|have|had|my|his|her|their)\s+(?:(?:` + namedOrigin + `|(?-i:[A-Z])[\w'’-]*)\s+){1,2}?(?-i:descent|heritage|ancestry|roots)` +
			`|ethnically\s+(?:mixed|(?-i:[A-Z])[\w'’-]*)|(?:my|his|her|their)\s+(?:ethnicity|ethnic\s+(?:background|origin|group)|racial\s+background)` +
			`|((?:from|into|in|of|to)\s+(?:(?:(?:a|an|the|my|his|her|their)\s+)?(?:(?:proud|big|large|mixed)\s+)?(?:` + phrases(ethnicIdentities) + `|roma|(?:gypsy\s+)?travell?er)\s+(?:family|families|household|background|heritage)` +
			`|(?:a|an)\s+(?:(?:proud|big|large)\s+)?` + ethnicColours + `\s+(?:family|household))))\b`)},
	// A colour names colleagues only with a word for them or a network:
	// "the black employee network", not "the white group" of a workshop.
	{name: "ethnic network", category: CategoryEthnicity, reason: "racial or ethnic origin", valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: terms([]string{"black", "white", "brown", "roma", "traveller", "gypsy", "ethnic", "colour", "color"}, ethnicIdentities)},
		re: regexp.MustCompile(`(?i)\b(?:member\s+of|joined|joins|belongs\s+to|part\s+of|chairs?|co-?chairs?|leads?|active\s+in|involved\s+in)\s+(?:the\s+|our\s+|a\s+|an\s+)?` +
			`(?:(?:` + phrases(ethnicIdentities) + `|` + ethnicCapitals + `|ethnic\s+minority|ethnic\s+minorities|people\s+of\s+colou?r|colleagues\s+of\s+colou?r)\s+(?:` + networkMembers + `\s+){0,2}` + networks +
			`|` + ethnicColours + `\s+(?:(?:` + networkMembers + `\s+){1,2}` + networks + `|network|erg|resource\s+group|affinity\s+group|caucus))\b`)},

	// A legal status, said of a person or as a clause with no verb:
	// "Undocumented", "Ex-offender", "is a refugee" ("Undocumented API
	// endpoints" and "the endpoint is undocumented" are about things).
	{name: "legal status", category: CategoryLegal, reason: "a personal legal matter (arrest, conviction, lawsuit)", valid: all(plainTerm, headTerm(legalStates), aboutAPersonByVerb),
		gate: gate{terms: terms(nil, legalStates)},
		re: clauseRule(`(?i)(?:\b` + be + `|\bbecame|\bstill|\bnow)\s+(?:(?:now|still|also|currently|legally)\s+){0,2}` + phrases(legalStates) + `\b` +
			`|` + clauseStart + `(?:(?:now|still|currently|former)\s+){0,2}` + phrases(legalStates) + `\b`)},

	// Living on welfare, as a clause with no verb: "On Universal Credit",
	// "On benefits since 2021" (not "on the benefits team").
	{name: "welfare", category: CategoryFinances, reason: "personal debt", valid: all(plainTerm, headTerm(welfare), notAClaimThat),
		gate: gate{terms: terms(nil, welfare)},
		re:   clauseRule(`(?i)` + clauseStart + `(?:(?:still|now|currently)\s+)?(?:on|claims?|claiming|receives?|receiving)\s+` + phrases(welfare) + `\b`)},

	// Coming out, by when: "came out last year", "came out in college".
	{name: "coming out, when", category: CategorySexuality, reason: "sexual orientation or gender identity", valid: all(plainTerm, aboutAPerson),
		gate: gate{terms: terms([]string{"came", "comes", "coming"})},
		re:   regexp.MustCompile(`(?i)\bc(?:ame|omes?|oming)\s+out\s+(?:(?:publicly|officially|finally|recently|only)\s+)?(?:last\s+(?:year|month|spring|summer|autumn|fall|winter)|this\s+year|(?:a|one|two|three|four|five|six|ten|\d+|a\s+few|several|many)\s+years\s+ago|in\s+(?:\d{4}|college|university|uni|high\s+school|school|(?:his|her|their|my)\s+(?:teens|twenties|thirties|forties)))\b`)},
}

// originVerbs lead to an origin's family: "comes from", "was born into",
// "grew up in", "married into", "proud of her Kurdish heritage".
var originVerbs = wordSet(`is am are was were comes come came coming born raised grew brought up also originally
	married marries marrying proud`)

// namedOrigin is an origin named in any case, or "mixed", before what it
// is the origin of: "of mixed heritage", "her kurdish heritage", "black
// ancestry".
var namedOrigin = `mixed|` + phrases(ethnicIdentities) + `|roma|` + ethnicColours

// rootsOfAPeople accepts roots where they are a people's: a named origin
// in any case ("her kurdish roots") or a capitalised demonym, known by its
// ending ("his Nigerian roots", "Polish", "Chinese", "Pakistani"). Other
// roots are a tool's, a place's, a faith's or a party's ("his Unix roots",
// "her Yorkshire roots", "his Republican roots"), or hair's ("her black
// roots").
func rootsOfAPeople(text string, loc []int) bool {
	m := text[loc[0]:loc[1]]
	if !strings.EqualFold(lastWord(m), "roots") {
		return true
	}
	before := strings.TrimRight(m[:len(m)-len("roots")], " \t\n")
	return namedOriginEnd.MatchString(before) || isDemonym(lastWord(before))
}

// heritageOfAPerson accepts descent, heritage, ancestry or roots that a
// person has or owns: with no subject ("Has Nigerian roots", "Proud of
// her Kurdish heritage"), or a pronoun's, a person's, a relation's or a
// given name's ("She has Irish roots", "Her mother has Irish roots",
// "Alice has Nigerian roots"), as personIsSubject reads a subject; not a
// thing's, a product's or a group's ("The dish has Korean heritage",
// "Linux has Finnish roots", "Her team has Indian roots"). "my", "his"
// and "her" own it as a person; "their" may be a group's ("The band is
// proud of their Irish roots"), so the clause's subject decides.
func heritageOfAPerson(text string, loc []int) bool {
	w, _, _ := nextWord(text[loc[0]:loc[1]])
	switch strings.ToLower(w) {
	case "has", "have", "had", "their":
		return personIsSubject(text, firstVerb(text, loc[0]), false)
	}
	return true
}

// firstVerb is where the first verb of the sentence before at starts
// ("She is proud of their …" at "is"), or at where there is none.
func firstVerb(text string, at int) int {
	start := strings.LastIndexAny(text[:at], ".!?;\n") + 1
	for i := start; i < at; {
		if !isAlnum(text[i]) {
			i++
			continue
		}
		j := i
		for j < at && (isAlnum(text[j]) || text[j] == '\'') {
			j++
		}
		if w := strings.ToLower(text[i:j]); statementVerbs[w] || originVerbs[w] {
			return i
		}
		i = j
	}
	return at
}

// namedOriginEnd matches a text that ends with a named origin.
var namedOriginEnd = regexp.MustCompile(`(?i)\b(?:` + phrases(ethnicIdentities) + `|roma)$`)

// isDemonym reports that w is a capitalised name of a people by its
// ending ("Nigerian", "Kurdish", "Chinese", "Somali") or one of the few
// that end otherwise ("Greek", "Dutch"); a faith's or a party's word of
// that shape ("Christian", "Republican") and a few others ("Victorian",
// "Debian") are not.
func isDemonym(w string) bool {
	if w == "" || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	w = strings.ToLower(w)
	switch {
	case notDemonyms[w]:
		return false
	case otherDemonyms[w]:
		return true
	}
	for _, e := range demonymEndings {
		if len(w) > len(e)+2 && strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
}

var (
	// demonymEndings end most names of a people.
	demonymEndings = []string{"an", "ish", "ese", "i", "ic"}
	// otherDemonyms are the names of a people that end otherwise, or are
	// too short for their ending to tell ("Irish").
	otherDemonyms = wordSet(`greek dutch french welsh czech swiss scots basque filipino filipina irish`)
	// notDemonyms end like a people's name and are a faith's or a party's
	// (the last word of a term: "Greek" in "Greek Orthodox" is a people),
	// an era's or a tool's.
	notDemonyms = func() map[string]bool {
		m := wordSet(`victorian edwardian elizabethan debian boolean`)
		for _, l := range [][]string{religiousIdentities, politicalIdentities, partyAdjectives} {
			for _, p := range l {
				ws := strings.FieldsFunc(p, func(r rune) bool { return r == ' ' || r == '-' })
				m[ws[len(ws)-1]] = true
			}
		}
		return m
	}()
)

// familyOrElse reads a match of an origin's family (group 1) with
// originOfAPerson, and any other frame with checks.
func familyOrElse(checks ...func(string, []int) bool) func(string, []int) bool {
	others := all(checks...)
	return func(text string, loc []int) bool {
		if loc[2] >= 0 {
			return originOfAPerson(text, loc)
		}
		return others(text, loc)
	}
}

// originOfAPerson accepts an origin's family that ends its phrase, said
// of the person a clause is about ("Comes from a Roma family", "Bob's
// wife grew up in a Traveller family"), not a thing ("the data comes from
// a Roma family survey").
func originOfAPerson(text string, loc []int) bool {
	if !endsOrHeadsAPerson(text[loc[1]:]) {
		return false
	}
	verb := loc[0]
	for w := lastWord(text[:verb]); w != "" && originVerbs[strings.ToLower(w)]; w = lastWord(text[:verb]) {
		verb = strings.LastIndex(text[:verb], w)
	}
	return personIsSubject(text, verb, false)
}

// notDrugs end like a drug and are not one.
var notDrugs = wordSet(`done undone abandon spam sitcom webcam stampede shampoo pampered leprechaun condone
	cardamom cheap outdone redone overdone madone`)

// notListed drops a match whose last word is in set.
func notListed(set map[string]bool) func(string, []int) bool {
	return func(text string, loc []int) bool {
		m := strings.ToLower(text[loc[0]:loc[1]])
		if i := strings.LastIndexAny(m, " \t\n"); i >= 0 {
			m = m[i+1:]
		}
		return !set[m]
	}
}

// notSoftware drops an illness of software or of a mood: "has a memory
// leak infection in the build", "has imposter syndrome".
func notSoftware(text string, loc []int) bool {
	for _, w := range strings.Fields(strings.ToLower(text[loc[0]:loc[1]])) {
		switch w {
		case "race", "data", "pipeline", "build", "bug", "code", "sync", "schema", "imposter", "impostor", "shiny", "object", "second", "founder", "hero":
			return false
		}
	}
	return true
}

// notBodyPartThing drops a body part that names a thing: "the back end",
// "a bad back button", "the heart of the matter".
func notBodyPartThing(text string, loc []int) bool {
	w, _, ok := nextWord(text[loc[1]:])
	if !ok {
		return true
	}
	switch strings.ToLower(w) {
	case "end", "ends", "office", "button", "catalog", "catalogue", "log", "burner", "story", "stage", "seat", "door", "channel", "pressure", "candy":
		return false
	}
	return true
}

// notBabyThing drops "having a baby shower", "expecting a baby monitor
// delivery": a baby that is a kind of thing.
func notBabyThing(text string, loc []int) bool {
	w, _, ok := nextWord(text[loc[1]:])
	if !ok {
		return true
	}
	switch strings.ToLower(w) {
	case "shower", "showers", "monitor", "monitors", "gift", "gifts", "steps", "step", "sitter", "photo", "photos", "pictures", "name", "names",
		"process", "processes", "node", "nodes", "element", "elements", "component", "components", "thread", "threads", "span", "spans", "window", "windows", "theme", "themes":
		return false
	}
	return true
}

// endsClause accepts a leaning said as what a person is, where the clause
// ends or goes on to another clause: "is a staunch conservative", not "is
// a conservative estimator" or "is very liberal with emoji".
func endsClause(text string, loc []int) bool {
	if strings.HasPrefix(strings.ToLower(text[loc[0]:loc[1]]), "vot") {
		return true // "votes Green": a vote, not a noun
	}
	w, _, ok := nextWord(text[loc[1]:])
	if !ok {
		return true
	}
	switch strings.ToLower(w) {
	case "and", "but", "who", "so", "since", "because", "though", "although", "voter", "voters", "activist":
		return true
	}
	return false
}

// claimedFollowers are the words after a benefit that a person claims, as
// opposed to one said to be true: "claims benefits since 2021", "claims
// Universal Credit for her son".
var claimedFollowers = wordSet(`since for from after while because and but so when until during every each on at in to
	as now again too also still monthly weekly via through`)

// claimVerbs are the verbs of a clause that says what benefits do or are:
// "claims benefits in the business case are inflated".
var claimVerbs = wordSet(`is are was were will would can could should may might must isn't aren't won't don't doesn't
	outweigh outweighs exceed exceeds`)

// clauseLinks start a clause of their own after a claimed benefit, whose
// verb is not the benefit's: "claims benefits that do not cover rent".
var clauseLinks = wordSet(`but and which that who because so though although while`)

var (
	// benefitJudgements say what benefits are worth in an argument:
	// "benefits that outweigh the costs", "that are overstated".
	benefitJudgements = wordSet(`outweigh outweighs outweighed justify justifies justified overstated exaggerated
		inflated overblown overrated overhyped illusory unproven hypothetical theoretical speculative`)
	// benefitComparisons weigh benefits against something: a cost in an
	// argument ("that offset the risks"), or a person's loss in welfare
	// ("that offset her lost wages").
	benefitComparisons = wordSet(`exceed exceeds exceeded offset offsets outstrip outstrips surpass surpasses dwarf dwarfs`)
	// costWords are what an argument weighs benefits against.
	costWords = wordSet(`cost costs price expense expenses spend effort investment overhead risk risks downside
		downsides drawback drawbacks disadvantages harms cons concerns disruption complexity tradeoffs trade-offs burden`)
)

// arguesBenefits reports that a relative clause about benefits judges
// them in an argument ("that outweigh the costs", "which are overstated")
// rather than says what a person's benefits do ("that do not cover rent",
// "that are means-tested").
func arguesBenefits(clause []string) bool {
	for i, w := range clause {
		w = strings.Trim(w, `"'’`)
		if benefitJudgements[w] {
			return true
		}
		if benefitComparisons[w] && slices.ContainsFunc(clause[i+1:min(len(clause), i+4)], func(w string) bool { return costWords[w] }) {
			return true
		}
	}
	return false
}

// notAClaimThat drops "claims" that says something is true rather than
// receives a benefit: "Claims benefits of remote work outweigh the
// costs", "claims disability benefits are too hard to get", "Claims
// benefits that outweigh the costs". A benefit a person claims ends its
// clause, or goes on with a reason, a time or an amount ("claims benefits
// of £400 a month") and no verb of its own before another clause starts,
// which may say what the benefits do unless it argues for them.
func notAClaimThat(text string, loc []int) bool {
	if !slices.ContainsFunc(strings.Fields(strings.ToLower(text[loc[0]:loc[1]])), func(w string) bool { return strings.HasPrefix(w, "claim") }) {
		return true
	}
	rest := text[loc[1]:]
	if i := strings.IndexAny(rest, ".,;:!?()\n"); i >= 0 {
		rest = rest[:i]
	}
	words := strings.Fields(strings.ToLower(rest))
	if i := slices.IndexFunc(words, func(w string) bool { return clauseLinks[w] }); i >= 0 {
		if (words[i] == "that" || words[i] == "which") && arguesBenefits(words[i+1:]) {
			return false
		}
		words = words[:i] // "claims benefits but they are late"
	}
	for _, w := range words {
		if claimVerbs[strings.Trim(w, `"'’`)] {
			return false
		}
	}
	switch {
	case len(words) == 0:
		return true
	case words[0] == "of":
		amount := strings.TrimSpace(strings.TrimSpace(text[loc[1]:])[len("of"):])
		for _, p := range []string{"about ", "around ", "roughly ", "over ", "nearly ", "almost ", "up to "} {
			amount = strings.TrimPrefix(amount, p)
		}
		r, _ := utf8.DecodeRuneInString(amount)
		return strings.ContainsRune("$€£₹¥0123456789", r)
	}
	return claimedFollowers[words[0]]
}

// notNamePart drops a match that a capitalised word continues: "member of
// the Prospect Park running club" names a park, not the union.
func notNamePart(text string, loc []int) bool {
	w, _, ok := nextWord(text[loc[1]:])
	return !ok || w[0] < 'A' || w[0] > 'Z'
}

// plainTermOrOf is plainTerm where "of" may follow: "cannot pay the loan
// of the car" is the loan of a person.
func plainTermOrOf(text string, loc []int) bool {
	if w, next, ok := nextWord(text[loc[1]:]); ok && strings.EqualFold(w, "of") {
		return plainTerm(text, []int{loc[0], len(text) - len(next)})
	}
	return plainTerm(text, loc)
}

// notOperationOnAThing drops an operation on a thing: "had surgery on the
// legacy code", where no body part, person or time follows "on" ("had
// surgery on her knee", "on Monday", "on the 12th").
func notOperationOnAThing(text string, loc []int) bool {
	m := strings.ToLower(text[loc[0]:loc[1]])
	if !strings.HasSuffix(m, "surgery") && !strings.HasSuffix(m, "surgeries") {
		return true
	}
	w, next, ok := nextWord(text[loc[1]:])
	if !ok || !strings.EqualFold(w, "on") {
		return true
	}
	for i := 0; i < 4; i++ {
		if w, next, ok = nextWord(next); !ok {
			break
		}
		if w = strings.ToLower(w); operatedOn[w] || w[0] >= '0' && w[0] <= '9' {
			return true
		}
	}
	return false
}

// operatedOn are what an operation "on" is of, or when it is: a body part,
// a person, a day or a month.
var operatedOn = func() map[string]bool {
	m := wordSet(`his her their my him them me both left right monday tuesday wednesday thursday friday saturday
		sunday january february march april may june july august september october november december nhs`)
	for _, p := range bodyParts {
		for _, w := range strings.Fields(p) {
			m[w] = true
		}
	}
	return m
}()

var (
	diagnosedWith = regexp.MustCompile(`(?i)^diagnosed\s+(?:with|as\s+having)\s+`)
	caseOf        = regexp.MustCompile(`(?i)^(?:an?\s+|the\s+)?(?:[a-z]+\s+)?case\s+of\s+`)
	medicalWord   = regexp.MustCompile(`(?i)\b(?:` + phrases(conditions) + `|[a-z]{2,}` + medicalSuffixes + `|` + medicalHeads + `|flu|influenza|measles|mumps|chickenpox|strep|norovirus|glandular\s+fever|pneumonia|bronchitis)\b`)
)

// notIdiomCase drops a diagnosis that is a figure of speech: "diagnosed
// with a bad case of scope creep" names no illness.
func notIdiomCase(text string, loc []int) bool {
	rest := text[loc[0]:]
	d := diagnosedWith.FindStringIndex(rest)
	if d == nil {
		return true
	}
	rest = rest[d[1]:]
	c := caseOf.FindStringIndex(rest)
	if c == nil {
		return true
	}
	end := strings.IndexAny(rest, ".;!?\n")
	if end < 0 {
		end = len(rest)
	}
	return medicalWord.MatchString(rest[c[1]:max(end, c[1])])
}

// endsAbbreviation accepts a condition's letters that end a phrase or go
// on to another ("has MS and works from home", "has t1d since 2010",
// "has ADHD of the inattentive type", "has MS in both legs"); a word after
// them is something they name ("has MS Teams open"). Only ms is also a
// unit, a degree or a title: milliseconds before "of" and a quantity
// ("has ms of headroom"), a degree before "in" and a subject ("has MS in
// physics"), and a title where "Ms" is written so and comes before a
// name ("has Ms. Jones as her manager"; "has MS. Her team knows" is the
// condition).
func endsAbbreviation(text string, loc []int) bool {
	rest := text[loc[1]:]
	w, next, ok := nextWord(rest)
	w = strings.ToLower(w)
	ms := strings.EqualFold(text[loc[1]-2:loc[1]], "ms")
	switch {
	case !ok && text[loc[1]-2:loc[1]] == "Ms" && strings.HasPrefix(rest, ". "):
		return !isTitledName(rest[1:])
	case !ok:
		return true
	case ms && w == "of":
		w2, next, _ := nextWord(next)
		if w2 = strings.ToLower(w2); quantityModifiers[w2] {
			w2, _, _ = nextWord(next)
			w2 = strings.ToLower(w2)
		}
		return !msQuantities[w2]
	case ms && w == "in":
		w2, _, _ := nextWord(next)
		return !degreeSubjects[strings.ToLower(w2)]
	case stopWords[w] || headFollowers[w]:
		return true
	case w == "diagnosis" || w == "symptoms" || w == "flare" || w == "flares" || w == "flare-ups" || w == "stage" || w == "type":
		return true
	}
	return false
}

// isTitledName reports that rest starts with a name a title may come
// before: a capitalised word that is not a verb, a pronoun or a
// determiner ("Ms. Jones", not "Ms. Her team knows").
func isTitledName(rest string) bool {
	name, _, ok := nextWord(rest)
	if !ok || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	name = strings.ToLower(name)
	return !statementVerbs[name] && !nonNames[name] && !personWords[name]
}

var (
	// msQuantities are what milliseconds measure: "has ms of headroom".
	msQuantities = wordSet(`headroom latency delay delays lag jitter slack budget overhead downtime buffer margin
		leeway padding tolerance wait waiting skew drift runtime pause pauses room time`)
	// quantityModifiers come between "of" and a quantity: "ms of spare
	// headroom".
	quantityModifiers = wordSet(`spare extra additional added more less total p50 p95 p99 tail`)
	// degreeSubjects are the subjects of a Master of Science: "MS in
	// physics", "MS in computer science".
	degreeSubjects = wordSet(`physics chemistry biology biochemistry mathematics maths math applied statistics
		computer computing cs data information engineering electrical mechanical civil chemical software aerospace
		biomedical bioinformatics economics finance financial accounting business management marketing analytics
		operations nursing psychology neuroscience genetics epidemiology pharmacology geology astronomy
		astrophysics ecology environmental materials robotics machine ai artificial cybersecurity security
		linguistics education architecture design`)
)
