package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

const tinyLoCoMo = `{
  "speaker_a": "Caroline", "speaker_b": "Melanie",
  "session_1_date_time": "1:56 pm on 8 May, 2023",
  "session_1": [
    {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!"},
    {"speaker": "Melanie", "dia_id": "D1:2", "text": "I painted a sunrise."}
  ],
  "session_2_date_time": "10:37 am on 27 June, 2023",
  "session_2": [{"speaker": "Caroline", "dia_id": "D2:1", "text": "I went to a support group."}],
  "session_3_date_time": "10:37 am on 28 June, 2023",
  "qa": [
    {"question": "When did Melanie paint a sunrise?", "answer": 2022, "evidence": ["D1:2"], "category": 2},
    {"question": "What did they do?", "answer": "x", "evidence": ["D1:2; D2:1", "D:1:1", "D9:9"], "category": 1},
    {"question": "Would Caroline?", "answer": "y", "evidence": [], "category": 3},
    {"question": "What did Caroline realize?", "evidence": ["D2:1"], "category": 5, "adversarial_answer": "z"}
  ]
}`

func TestReadConversation(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "26.json"), []byte(tinyLoCoMo), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadConversation(dir, "26.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "26" || c.SpeakerA != "Caroline" || len(c.Turns) != 3 {
		t.Fatalf("read %+v", c)
	}
	if got, want := c.Turns[1].Memory(), "Melanie (8 May 2023): I painted a sunrise."; got != want {
		t.Errorf("memory = %q, want %q", got, want)
	}
	if !c.Turns[2].At.Equal(time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC)) {
		t.Errorf("session 2 at %v", c.Turns[2].At)
	}
	// Category 5 is left out, and so is a question without evidence; the
	// mistyped labels are read, the one naming no turn dropped.
	if len(c.Questions) != 2 || c.QuestionsNoEvidence != 1 {
		t.Fatalf("questions %+v, %d without evidence", c.Questions, c.QuestionsNoEvidence)
	}
	if got := strings.Join(c.Questions[1].Evidence, " "); got != "D1:2 D2:1 D1:1" {
		t.Errorf("evidence %q", got)
	}
	if len(c.DroppedEvidence) != 1 || c.DroppedEvidence[0] != "D9:9" {
		t.Errorf("dropped %q", c.DroppedEvidence)
	}
}

// The held-out conversations are refused by name, even when present.
func TestReadConversationRefusesHeldOut(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"26.json", "44.json", "47.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(tinyLoCoMo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadConversation(dir, "26.json"); err != nil {
		t.Fatalf("a development conversation: %v", err)
	}
	for _, name := range []string{"44.json", "47.json", "../26.json", "26"} {
		if _, err := ReadConversation(dir, name); err == nil || !strings.Contains(err.Error(), "held out") {
			t.Errorf("%s: err = %v, want refused as held out", name, err)
		}
	}
}

// A tiny conversation, run through every shape on a real server: the
// asker sees the rows in each shape (every method finds the evidence of
// questions with a rare word), the noise is in the database, and the
// tallies count what they should.
func TestRunLoCoMoShapes(t *testing.T) {
	server := testdb.ServerURL(t)
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	c := Conversation{Name: "26", SpeakerA: "Caroline", SpeakerB: "Melanie"}
	for i, text := range []string{
		"Hey Mel, how have you been?",
		"I painted a sunrise over the lake last year.",
		"I went to the LGBTQ support group yesterday.",
		"My kids love the pottery workshop.",
		"Adoption agencies have been so helpful.",
		"We went camping in the mountains with the family.",
	} {
		speaker := []string{"Caroline", "Melanie"}[i%2]
		c.Turns = append(c.Turns, Turn{DiaID: fmt.Sprintf("D%d:%d", 1+i/3, 1+i%3), Speaker: speaker, Text: text, At: at.AddDate(0, 0, 7*(i/3))})
	}
	c.Questions = []LoCoMoQuestion{
		{Text: "When did Melanie paint a sunrise?", Category: 2, Evidence: []string{"D1:2"}},
		{Text: "What pottery workshop and camping trips?", Category: 1, Evidence: []string{"D2:1", "D2:3"}},
		{Text: "Which adoption agencies helped?", Category: 4, Evidence: []string{"D2:2"}},
	}
	var done []string
	res, err := RunLoCoMo(context.Background(), []Conversation{c}, LoCoMoOptions{
		Server: server, Shapes: LoCoMoShapes, Noise: 300, Database: "mnemo_t_locomo_" + randomSuffix(),
		Done: func(s ShapeResult) { done = append(done, s.Shape) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(done, LoCoMoShapes) || len(res.Shapes) != 3 || res.Questions != 3 || res.Turns != 6 {
		t.Fatalf("shapes %v, result %+v", done, res)
	}
	for _, s := range res.Shapes {
		// Without pgvector the product's rankings are the same, memory by
		// memory (checked in the channel and personal shapes).
		if s.Shape == ShapeNoisy {
			if s.Unmoved != nil {
				t.Errorf("noisy: checked without pgvector")
			}
		} else if s.Unmoved == nil || s.Unmoved.Rankings != 6 || s.Unmoved.Differ != 0 {
			t.Errorf("%s: without pgvector %+v, want 6 rankings, none moved", s.Shape, s.Unmoved)
		}
		want := 6
		if s.Shape == ShapeNoisy {
			want += 300
		}
		if s.Rows != want {
			t.Errorf("%s: %d rows, want %d", s.Shape, s.Rows, want)
		}
		for _, m := range s.Methods {
			k := 25
			if m.Name == MethodForPrompt {
				k = 8
			}
			if m.All.N != 3 || m.ByCat[2].N != 1 || m.ByCat[3].N != 0 {
				t.Errorf("%s, %s: counted %d questions, %d of category 2", s.Shape, m.Name, m.All.N, m.ByCat[2].N)
			}
			if m.All.R(k) != 1 || m.All.H(k) != 1 {
				t.Errorf("%s, %s: recall@%d %.3f, hit@%d %.3f, want every evidence turn found", s.Shape, m.Name, k, m.All.R(k), k, m.All.H(k))
			}
		}
	}
}

func randomSuffix() string { return fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000_000) }

func TestTally(t *testing.T) {
	var x Tally
	x.add([]string{"a", "", "b", "c", "d", "e", "f", "g", "h", "x"}, []string{"b", "x"}) // b at 3, x at 10
	x.add([]string{"", "q"}, []string{"z"})
	if x.N != 2 || x.R(5) != 0.25 || x.R(10) != 0.5 || x.H(5) != 0.5 || x.H(25) != 0.5 {
		t.Errorf("tally %+v: R@5 %v R@10 %v H@5 %v", x, x.R(5), x.R(10), x.H(5))
	}
}
