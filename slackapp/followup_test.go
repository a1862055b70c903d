package slackapp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

func TestAddressesBot(t *testing.T) {
	t.Parallel()
	u := func(id, text string) threads.Message {
		return threads.Message{Role: threads.RoleUser, Actor: provenance.Actor{Kind: provenance.KindUser, ID: id}, Text: text}
	}
	bot := threads.Message{Role: threads.RoleAssistant, Text: "here you go"}
	oneOnOne := []threads.Message{u("UA", "@mnemo hi"), bot}
	group := []threads.Message{u("UA", "@mnemo hi"), bot, u("UB", "nice")}
	require.True(t, AddressesBot("and tomorrow?", "UA", oneOnOne), "direct continuation")
	require.False(t, AddressesBot("and tomorrow?", "UB", []threads.Message{u("UA", "@mnemo hi"), u("UB", "hey"), bot}), "the bot has talked with two people")
	require.False(t, AddressesBot("yes it is green", "UA", group), "last message is not the bot's")
	require.True(t, AddressesBot("mnemo, summarize this", "UA", group), "named")
	require.True(t, AddressesBot("thanks mnemo, one more thing", "UB", group))
	require.False(t, AddressesBot("mnemonic devices are neat", "UB", group))
	require.False(t, AddressesBot("hi", "UA", nil))
}
