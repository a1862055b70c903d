package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// LoCoMoFiles are the LoCoMo conversations (github.com/snap-research/locomo,
// data/locomo10.zip, locomo10_v2) this project may read: the first five, its
// development set. The other five are held out for the acceptance of issue
// 19: a ranking tuned while looking at them would be measured on what it
// was fitted to. So ReadLoCoMo refuses every other file by name, and no
// test, benchmark or fixture reads them. The data is not committed: it is
// published without a license file.
var LoCoMoFiles = []string{"26.json", "30.json", "41.json", "42.json", "43.json"}

// LoCoMoHowTo says how to get the data, for a run without it.
const LoCoMoHowTo = "set LOCOMO_DIR to a directory holding files 26, 30, 41, 42 and 43 of locomo10_v2 " +
	"(github.com/snap-research/locomo, data/locomo10.zip, unzipped; the other five are held out and refused)"

// LoCoMoCategories names LoCoMo's question categories 1–4, as its
// released data numbers them (5, adversarial, has no answer in the
// conversation and is left out).
var LoCoMoCategories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// Conversation is one LoCoMo conversation: its turns in order and its
// questions of categories 1–4.
type Conversation struct {
	Name                string // the file's name without .json ("26")
	SpeakerA, SpeakerB  string
	Turns               []Turn
	Questions           []LoCoMoQuestion
	DroppedEvidence     []string // evidence ids that name no turn
	QuestionsNoEvidence int      // questions left out: none of their evidence names a turn
}

// Turn is one utterance, with the time of its session.
type Turn struct {
	DiaID   string // "D1:3": session 1, turn 3
	Speaker string
	Text    string
	At      time.Time
}

// Memory is the turn as it is stored: who said it, on which day, and what.
func (t Turn) Memory() string {
	return fmt.Sprintf("%s (%s): %s", t.Speaker, t.At.Format("2 January 2006"), t.Text)
}

// LoCoMoQuestion is a question and the turns that answer it.
type LoCoMoQuestion struct {
	Text     string
	Category int
	Evidence []string
}

// ReadLoCoMo reads the development conversations from dir.
func ReadLoCoMo(dir string) ([]Conversation, error) {
	var out []Conversation
	for _, name := range LoCoMoFiles {
		c, err := ReadConversation(dir, name)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ReadConversation reads one conversation of LoCoMoFiles; any other name
// is refused (see LoCoMoFiles).
func ReadConversation(dir, name string) (Conversation, error) {
	if !slices.Contains(LoCoMoFiles, name) {
		return Conversation{}, fmt.Errorf("locomo: %s is not one of the development conversations %v: the others are held out", name, LoCoMoFiles)
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return Conversation{}, fmt.Errorf("locomo: %w", err)
	}
	c, err := parseConversation(b)
	if err != nil {
		return Conversation{}, fmt.Errorf("locomo: %s: %w", name, err)
	}
	c.Name = strings.TrimSuffix(name, ".json")
	return c, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

func parseConversation(b []byte) (Conversation, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Conversation{}, err
	}
	var c Conversation
	if err := json.Unmarshal(raw["speaker_a"], &c.SpeakerA); err != nil {
		return c, fmt.Errorf("speaker_a: %w", err)
	}
	if err := json.Unmarshal(raw["speaker_b"], &c.SpeakerB); err != nil {
		return c, fmt.Errorf("speaker_b: %w", err)
	}
	var sessions []int
	for k := range raw {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			sessions = append(sessions, n)
		}
	}
	if len(sessions) == 0 {
		return c, fmt.Errorf("no sessions")
	}
	sort.Ints(sessions)
	ids := map[string]bool{}
	for _, n := range sessions {
		var when string
		if err := json.Unmarshal(raw[fmt.Sprintf("session_%d_date_time", n)], &when); err != nil {
			return c, fmt.Errorf("session %d: date: %w", n, err)
		}
		// "1:56 pm on 8 May, 2023"
		at, err := time.Parse("3:04 pm on 2 January, 2006", when)
		if err != nil {
			return c, fmt.Errorf("session %d: date %q: %w", n, when, err)
		}
		var turns []struct {
			Speaker string `json:"speaker"`
			DiaID   string `json:"dia_id"`
			Text    string `json:"text"`
		}
		if err := json.Unmarshal(raw[fmt.Sprintf("session_%d", n)], &turns); err != nil {
			return c, fmt.Errorf("session %d: %w", n, err)
		}
		for _, t := range turns {
			if t.DiaID == "" || strings.TrimSpace(t.Text) == "" {
				return c, fmt.Errorf("session %d: a turn without id or text", n)
			}
			ids[t.DiaID] = true
			c.Turns = append(c.Turns, Turn{DiaID: t.DiaID, Speaker: t.Speaker, Text: t.Text, At: at})
		}
	}
	var qa []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	}
	if err := json.Unmarshal(raw["qa"], &qa); err != nil {
		return c, fmt.Errorf("qa: %w", err)
	}
	for _, q := range qa {
		if LoCoMoCategories[q.Category] == "" {
			continue
		}
		var ev []string
		for _, e := range q.Evidence {
			// A few labels are mistyped: "D8:6; D9:17" (two in one),
			// "D:11:26"; one names a turn the session doesn't have.
			for _, f := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
				f = strings.Replace(f, "D:", "D", 1)
				switch {
				case ids[f] && !slices.Contains(ev, f):
					ev = append(ev, f)
				case !ids[f]:
					c.DroppedEvidence = append(c.DroppedEvidence, f)
				}
			}
		}
		if len(ev) == 0 {
			c.QuestionsNoEvidence++
			continue
		}
		c.Questions = append(c.Questions, LoCoMoQuestion{Text: q.Question, Category: q.Category, Evidence: ev})
	}
	return c, nil
}
