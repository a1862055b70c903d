package detect

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// casingFacts are facts written in several cases, each found in its
// category however it is cased; casingNegatives are the same words said of
// a thing, found in none. FuzzDetect starts from both.
var (
	casingFacts = []struct {
		want  Category
		forms []string
	}{
		// A colour is an origin where it is what a person is: the
		// memory's subject-less predicate, a pronoun's or a person's.
		{CategoryEthnicity, []string{"Is Black", "Is black", "is black", "IS BLACK"}},
		{CategoryEthnicity, []string{"Identifies as Black", "Identifies as black", "identifies as black"}},
		{CategoryEthnicity, []string{"She is White", "she is white", "The user is brown", "I'm black", "Amara Okafor is black"}},
		{CategoryEthnicity, []string{"Was born white", "was born White", "Lives in Leeds, is black", "Is half black"}},
		{CategoryEthnicity, []string{"Is mixed race", "is Mixed Race", "IS MIXED RACE"}},
		{CategoryEthnicity, []string{"Black British", "black british", "BLACK BRITISH"}},
		{CategoryEthnicity, []string{"A Black woman in tech", "a black woman in tech", "Is a black man", "black person, based in Leeds"}},
		{CategoryEthnicity, []string{"Black and proud", "black and proud", "Is black and proud", "black and queer"}},
		{CategoryEthnicity, []string{"Member of the Black employee network", "member of the black employee network"}},
		// A person named by a relation owns the colour as a pronoun
		// does: "her husband", "Bob's wife", "my manager".
		{CategoryEthnicity, []string{"Her husband is Black", "her husband is black", "My partner is Black", "My colleague is Black", "my colleague is black"}},
		{CategoryEthnicity, []string{"Her mother is Black", "Bob's wife is Black", "Bob's wife is black", "My manager is Black and proud", "Their son is black"}},
		{CategoryEthnicity, []string{"The user's manager is black", "The user's partner is white", "The person's mother is Black", "User's wife is black", "The user's new manager is black"}},
		// A lone capitalised word is a person where it is a given name
		// that is no other word, or a title's name; a name that is also
		// a word ("bob", a haircut) is one capitalised. Two names given
		// origins' colours, with no legend's words, are two people.
		{CategoryEthnicity, []string{"Alice is black", "alice is black", "Amara is black", "Olu is white", "Alice comes from a traveller family"}},
		{CategoryEthnicity, []string{"Bob is black", "Amara is Black and proud", "Alice is white, Bob is black", "Alice is black. She leads the Node team"}},
		{CategoryEthnicity, []string{"Dr. Okafor is black", "Ms. Okafor is black", "Lives in Leeds. Dr. Okafor is black"}},
		// Roma is what a person is where a verb or a person it heads
		// says so, in any case; a Traveller is one by capitals or by an
		// origin's frame.
		{CategoryEthnicity, []string{"Is Roma", "is roma", "IS ROMA", "identifies as roma", "Identifies as Roma", "a roma woman", "a roma family", "A Roma family"}},
		{CategoryEthnicity, []string{"Romani", "romani", "Is Romani", "is romani", "is an irish traveller", "Is an Irish Traveller", "irish traveller"}},
		{CategoryEthnicity, []string{"from a traveller family", "From a Traveller family", "Comes from a roma family", "Was born into a romani family", "grew up in a kurdish household", "Is of roma heritage"}},
		// Pride in an origin, or in being one, is having it; roots are a
		// people's where the origin is named or a demonym.
		{CategoryEthnicity, []string{"Proud of her Kurdish heritage", "proud of her kurdish heritage", "PROUD OF HER KURDISH HERITAGE", "She is proud of her Somali heritage"}},
		{CategoryEthnicity, []string{"Proud of his Nigerian roots", "Has Nigerian roots", "has kurdish roots", "Proud of their Polish roots", "Proud of her Chinese roots", "Has Greek roots", "Has Russian roots"}},
		// Roots and heritage are a person's: a pronoun's, a relation's,
		// a given name's.
		{CategoryEthnicity, []string{"Her mother has Irish roots", "She has Irish roots", "Alice has Nigerian roots", "The user's manager has Irish roots", "My partner has Greek heritage"}},
		{CategoryEthnicity, []string{"Lives in Leeds and has Irish roots", "They are proud of their Kurdish heritage", "Dr. Okafor has Nigerian roots"}},
		{CategoryEthnicity, []string{"Is proud of being Black", "is proud of being black", "Proud to be Black", "Proud to be Kurdish", "proud to be a black woman"}},
		// A family one marries into, or is from, has an origin; a colour
		// is one in "a" family ("the Black family" is a surname's).
		{CategoryEthnicity, []string{"Married into a Kurdish family", "married into a kurdish family", "She married into a Roma family"}},
		{CategoryEthnicity, []string{"She is from a Black family", "she is from a black family", "Comes from a white family", "Grew up in a Black household"}},
		{CategoryEthnicity, []string{"Comes from a mixed-race family", "Is mixed-race", "is Mixed-Race", "Is of mixed-race heritage", "Proud of being mixed-race"}},
		// A faith's family is a religion's frame as an origin's is.
		{CategoryReligion, []string{"Married into a Sikh family", "married into a sikh family", "Comes from a Catholic family", "Grew up in a Muslim household"}},
		{CategoryReligion, []string{"Was raised in a devout Hindu family", "Born into a Jewish family", "She is from a religious family"}},
		// A condition's letters, whatever their case, after a verb that
		// a person has it by.
		{CategoryHealth, []string{"Has MS", "has ms", "Has Ms", "HAS MS", "has ms and works from home"}},
		{CategoryHealth, []string{"Diagnosed with MS", "diagnosed with ms", "Has MS. Works from home"}},
		{CategoryHealth, []string{"Living with T1D", "living with t1d", "Has t1d since 2010", "has Copd"}},
		// "of" and "in" go on from a condition: only ms before a unit
		// is milliseconds, only MS in a subject is a degree.
		{CategoryHealth, []string{"Has ADHD of the inattentive type", "Has EDS of the hypermobile type", "Has COPD of moderate severity"}},
		{CategoryHealth, []string{"Has MS in both legs", "Has GAD in social settings", "has ms in remission"}},
		// "MS." in capitals is the condition, not the title "Ms.".
		{CategoryHealth, []string{"Has MS. Her team knows.", "Has MS. Manchester-based.", "Has Ms. Her team knows."}},
		// Welfare a person claims or lives on.
		{CategoryFinances, []string{"Claims benefits", "claims benefits", "CLAIMS BENEFITS", "On benefits", "on benefits"}},
		{CategoryFinances, []string{"Claims disability benefits", "claims Universal Credit", "claims universal credit since 2022", "Claims benefits of £400 a month"}},
		// A later clause says something of the benefits, not that
		// they are claimed.
		{CategoryFinances, []string{"She claims benefits but they are late", "Claims benefits which are not enough to live on"}},
		{CategoryFinances, []string{"Claims benefits that do not cover rent", "Claims disability benefits that are means-tested"}},
		{CategoryFinances, []string{"Claims benefits that offset her lost wages", "Claims benefits that exceed £400 a month", "claims benefits which are late"}},
	}
	casingNegatives = []string{
		// Another subject owns the colour, or the colour modifies a
		// thing or is a value.
		"Background is white", "background is white", "The theme is black", "The theme is Black", "the theme is black",
		"Her car is black", "Prefers black coffee", "Prefers Black coffee", "black theme", "Black theme", "white paper",
		"White paper", "whiteboard", "Whiteboard", "Theme: black", "Output is black and white", "Is a black belt in judo",
		"black friday sale", "Was white as a sheet after the demo", "Prefers the theme to be black",
		// Milliseconds, Microsoft, a title, a degree.
		"ms teams", "MS Teams", "uses MS Word", "uses ms word", "within 200 ms", "latency of 30ms", "Ms Smith",
		"has ms teams open", "Has Ms. Jones as her manager", "has ms of headroom", "Has MS in physics",
		"ms of headroom", "200 ms of latency", "has ms of latency", "has ms of spare headroom", "Has an MS in physics",
		"Has MS in computer science", "Has an MS in engineering", "Ms Smith approved", "Has Ms Smith as a mentor",
		"My laptop is white", "Their logo is black", "Her husband's car is black", "Bob's car is black", "My team is white",
		"The user's car is black", "The company's logo is black", "The user's manager's laptop is white",
		// A lone capitalised word that is a thing, a product, a branch, a
		// name that is also a word, or an animal's name.
		"Dark mode is black", "Slack is white", "Main is black", "Terraform is black", "Claude is white", "Ruby is black",
		"Has a dog called Olivia. Olivia is black", "Olivia, our cat, is white",
		// Roma the city or club, and people who travel.
		"a roma fan", "Is a Roma fan", "is a roma supporter", "Is a Roma supporter", "loves roma", "Favourite club: roma",
		"roma", "is a frequent traveller", "business traveller", "traveller's cheques", "is a traveller",
		"The data comes from a roma family survey", "Runs an Asian family restaurant", "Story of a roma family",
		// Heritage, roots and a family that are no people's: work's,
		// money's, a size, a trade, a tool's, a place's, a party's, hair,
		// a typeface's weight, a surname, a product.
		"Proud of her work heritage", "proud of her engineering heritage", "Married into money", "from a large family",
		"from a family of engineers", "Married into a family of engineers", "the family of products",
		"from a white-collar family", "Comes from a white-collar family", "Comes from a blue-collar family",
		"a black family car", "the black family of fonts", "Comes from the Black family", "Bought the house from the Black family",
		"Proud of his Unix roots", "Has Python roots", "Proud of her Yorkshire roots", "Proud of his Republican roots",
		"Her black roots are showing", "has grey roots", "Married into the Christian family", "Runs a Christian family bookshop",
		"Comes from a Catholic family survey", "The data comes from a black family survey", "Proud to be Black Friday ready",
		"Proud to be white-labelled", "Proud of the Kurdish translation", "Proud of the new debt dashboard",
		"The brand is proud of its Italian heritage", "The restaurant is proud of their Italian roots",
		// Roots and heritage a thing, a product or a group has.
		"Linux has Finnish roots", "Skype has Estonian roots", "Spotify has Swedish roots", "Ruby has Japanese roots",
		"Kotlin has Russian roots", "Her team has Indian roots", "Python has Dutch roots", "The dish has Korean heritage",
		"The brand has French heritage", "Skype has Estonian heritage", "Her team has Indian heritage",
		"Her team is proud of their Indian roots", "The company has Swedish roots", "The recipe has Korean heritage",
		// Given names as a legend's placeholders: a diagram's or a
		// chart's words near, or a colour that is no one's origin; and
		// "bob" in lower case, a haircut.
		"Legend: Alice is white, Bob is black.", "In the sequence diagram Alice is blue and Bob is black.",
		"Chris is white on the chart", "bob is black", "alice is green, bob is black", "Key: Alice is white, Bob is black",
		"Alice is white on the slide", "Alice is black in the colour-coded swimlane", "Alice is white (highlighted)",
		// "Claims" that says what is true of benefits.
		"Claims benefits of the new CI pipeline are overstated", "Claims benefits of remote work outweigh the costs",
		"claims benefits of remote work outweigh the costs", "CLAIMS BENEFITS OF REMOTE WORK OUTWEIGH THE COSTS",
		"Claims disability benefits are too hard to get", "Claims benefits in the business case are inflated",
		"Claims benefits that outweigh the costs", "claims benefits that outweigh the costs", "Claims benefits that exceed the costs",
		"Claims benefits which are overstated", "Claims benefits that justify the migration", "Claims benefits that offset the risks",
	}
)

// Sensitivity is judged on what a fact means, not on its case: "is
// black", "has ms" and "claims benefits" are found however they are
// written, and the same words said of a thing ("Background is white", "ms
// teams", "Claims benefits of remote work outweigh the costs") are not.
// One capitalised word before a colour is a person where it is a given
// name that is no other word ("Alice is black"); a thing, a product or a
// name that is also a word ("Background is white", "Slack is white",
// "Ruby is black") is not, and an unlisted name is found only with a
// capitalised colour ("Alice is Black"), the rest left to the model review.
// A given name in a legend ("Legend: Alice is white, Bob is black") is a
// placeholder, and roots or heritage are a person's ("Her mother has Irish
// roots"), not a product's or a group's ("Linux has Finnish roots", "Her
// team has Indian roots").
func TestSensitiveWhateverTheCase(t *testing.T) {
	t.Parallel()
	for _, fact := range casingFacts {
		for _, text := range fact.forms {
			t.Run(text, func(t *testing.T) {
				cat, reason := Sensitive(text)
				require.Equal(t, fact.want, cat, "%q: findings %+v", text, Detect(text))
				require.NotEmpty(t, reason, text)
				require.Equal(t, scan(text, nil, false), Detect(text), "gates changed the findings of %q", text)
			})
		}
	}
	for _, text := range casingNegatives {
		t.Run(text, func(t *testing.T) {
			require.Empty(t, Detect(text), text)
			require.Equal(t, scan(text, nil, false), Detect(text), "gates changed the findings of %q", text)
		})
	}
}
