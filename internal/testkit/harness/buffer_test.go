package harness

import (
	"testing"
	"time"
)

func TestWaitForWakesOnTheWriteThatBringsTheText(t *testing.T) {
	t.Parallel()
	var b Buffer
	if b.WaitFor("serving", time.Millisecond) {
		t.Fatal("found in an empty log")
	}
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		_, _ = b.Write([]byte(`{"message":"starting"}` + "\n"))
		_, _ = b.Write([]byte(`{"message":"serving"}` + "\n"))
	}()
	if !b.WaitFor("serving", time.Minute) {
		t.Fatalf("not found in:\n%s", b.String())
	}
	<-wrote
	if b.Await(time.Millisecond, func(log string) bool { return len(log) == 0 }) {
		t.Fatal("a condition that no longer holds was reported true")
	}
}
