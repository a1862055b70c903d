package threads

import (
	"fmt"
	"strconv"
	"time"
)

// TS is a Slack message timestamp that passed ParseTS: "<seconds>.<micros>",
// ASCII digits only, exactly six after the dot. Its zero value is not a valid
// timestamp.
type TS string

// ErrBadTS is wrapped by every ParseTS error.
var ErrBadTS = fmt.Errorf("invalid Slack timestamp")

// ParseTS validates the Slack timestamp value found in field (for example
// "event.thread_ts"). Anything that is not exactly <digits>.<6 digits> is
// rejected, so a fixture or event with a label-suffixed ts can never be keyed
// per message by accident.
func ParseTS(field, value string) (TS, error) {
	if err := checkTS(value); err != nil {
		return "", fmt.Errorf("%w: field %s value %q: %s", ErrBadTS, field, value, err)
	}
	return TS(value), nil
}

func checkTS(v string) error {
	const micros = 6
	dot := -1
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '.':
			if dot >= 0 {
				return fmt.Errorf("more than one dot")
			}
			dot = i
		case c < '0' || c > '9':
			return fmt.Errorf("byte %d is %q, want a digit or one dot", i, c)
		}
	}
	switch {
	case dot < 0:
		return fmt.Errorf("missing the dot and %d-digit fraction", micros)
	case dot == 0:
		return fmt.Errorf("missing the seconds before the dot")
	case dot > 12:
		return fmt.Errorf("seconds have more than 12 digits")
	case len(v)-dot-1 != micros:
		return fmt.Errorf("fraction has %d digits, want %d", len(v)-dot-1, micros)
	}
	return nil
}

// Time is the instant the timestamp names.
func (t TS) Time() time.Time {
	s := string(t)
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			sec, _ := strconv.ParseInt(s[:i], 10, 64)
			usec, _ := strconv.ParseInt(s[i+1:], 10, 64)
			return time.Unix(sec, usec*1000).UTC()
		}
	}
	return time.Time{}
}

// TSFromTime formats an instant as a Slack timestamp, for messages that do not
// come from Slack (the local chat) and for tests.
func TSFromTime(t time.Time) TS {
	return TS(fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000))
}
