package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
