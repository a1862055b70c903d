package db

import (
	"context"
	"fmt"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Settings owns channel_settings and user_settings: the switches admins set
// per channel, and people set for themselves.
type Settings struct {
	e executor
	q *dbsqlc.Queries
}

// LearningEnabled says whether passive learning is on in a channel; it is on
// unless an admin turned it off.
func (s Settings) LearningEnabled(ctx context.Context, team, channel string) (bool, error) {
	on, err := s.q.ChannelLearningEnabled(ctx, s.e, dbsqlc.ChannelLearningEnabledParams{TeamID: team, ChannelID: channel})
	if err != nil {
		return false, fmt.Errorf("learning setting: %w", mapErr(err))
	}
	return on, nil
}

// SetLearning turns passive learning on or off in a channel. Nothing is
// written while the team's erasure runs (ErrErasing), and an erasure that
// starts later waits for the write and deletes it.
func (s Settings) SetLearning(ctx context.Context, team, channel string, on bool, by string) error {
	n, err := s.q.ChannelLearningSet(ctx, s.e, dbsqlc.ChannelLearningSetParams{TeamID: team, ChannelID: channel, LearningEnabled: on, UpdatedBy: by})
	if err == nil && n == 0 {
		err = ErrErasing
	}
	if err != nil {
		return fmt.Errorf("set learning: %w", mapErr(err))
	}
	return nil
}

// UserLearningEnabled says whether passive learning about a person is on; it
// is on unless they turned it off.
func (s Settings) UserLearningEnabled(ctx context.Context, team, user string) (bool, error) {
	on, err := s.q.UserLearningEnabled(ctx, s.e, dbsqlc.UserLearningEnabledParams{TeamID: team, UserID: user})
	if err != nil {
		return false, fmt.Errorf("user learning setting: %w", mapErr(err))
	}
	return on, nil
}

// SetUserLearning turns passive learning about a person on or off; not
// while the team's erasure runs, as SetLearning.
func (s Settings) SetUserLearning(ctx context.Context, team, user string, on bool) error {
	n, err := s.q.UserLearningSet(ctx, s.e, dbsqlc.UserLearningSetParams{TeamID: team, UserID: user, LearningEnabled: on})
	if err == nil && n == 0 {
		err = ErrErasing
	}
	if err != nil {
		return fmt.Errorf("set user learning: %w", mapErr(err))
	}
	return nil
}
