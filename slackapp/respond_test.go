package slackapp

import (
	"context"
	"net"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"
)

// A response URL is a credential: the error of a post to one that failed
// on the network says what failed, not the URL.
func TestAFailedResponseURLIsLoggedWithoutIt(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now: the post fails on the network
	const secret = "AbCdEf0123456789zqxsecret"
	err = slack.PostWebhookCustomHTTPContext(context.Background(), "http://"+addr+"/commands/T0AAAA/1234567890/"+secret, webhookClient, &slack.WebhookMessage{Text: "hi"})
	require.Error(t, err)
	require.Contains(t, err.Error(), secret, "the control: slack-go's error names the URL")
	require.NotContains(t, withoutURL(err).Error(), secret)
	require.Contains(t, withoutURL(err).Error(), "response_url")
}
