package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Class says what kind of failure an Error is, and so what to do about it.
type Class string

const (
	// ClassAuth: the provider refused the key (401, 403). Retrying won't help.
	ClassAuth Class = "auth"
	// ClassRateLimited: too many requests or tokens (429). Wait, then retry.
	ClassRateLimited Class = "rate_limited"
	// ClassOverloaded: the provider is overloaded (Anthropic 529, 503). Retry later.
	ClassOverloaded Class = "overloaded"
	// ClassServer: the provider failed (other 5xx). Retry later.
	ClassServer Class = "server"
	// ClassBadRequest: the provider rejected the request (400, 404, 422, other
	// 4xx). This is a bug on our side; retrying sends the same bug again.
	ClassBadRequest Class = "bad_request"
	// ClassMalformed: the provider answered, but the answer could not be read.
	ClassMalformed Class = "malformed"
	// ClassNetwork: no (complete) answer came back: the connection failed,
	// timed out, or a stream broke off.
	ClassNetwork Class = "network"
)

// Error is a model provider's failure, classified once here so callers never
// import an SDK to branch on it.
type Error struct {
	Provider string // "anthropic" or "openai"
	// Status is the HTTP status, or 0 when there was none (network failures,
	// and errors a provider sends in the middle of a stream).
	Status int
	Class  Class
	// Message is the provider's own explanation, from the response body, with
	// anything that looks like a key masked.
	Message string
	// RetryAfter is how long the provider asked us to wait (Retry-After or
	// retry-after-ms), or 0 if it did not say.
	RetryAfter time.Duration
	// Model is the model the request named.
	Model string

	err error
}

// Error keeps the provider's message and adds advice that fits the class.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	b.WriteString(e.summary())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if msg := strings.TrimRight(e.Message, ". "); msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	if a := e.Advice(); a != "" {
		b.WriteString("; ")
		b.WriteString(a)
	}
	return b.String()
}

// Unwrap returns the SDK or transport error underneath, if any.
func (e *Error) Unwrap() error { return e.err }

// Retryable reports whether the same request may succeed later.
func (e *Error) Retryable() bool {
	switch e.Class {
	case ClassRateLimited, ClassOverloaded, ClassServer:
		return true
	}
	return false
}

// ModelNotFound reports whether the provider answered 404 about the
// model: a wrong MNEMO_MODEL, or a model a local server has not pulled.
func (e *Error) ModelNotFound() bool {
	if e.Status != http.StatusNotFound || e.Model == "" {
		return false
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, strings.ToLower(e.Model)) || strings.Contains(msg, "model")
}

func (e *Error) summary() string {
	switch {
	case e.ModelNotFound():
		return fmt.Sprintf("model %q was not found at the provider", e.Model)
	case e.Status == http.StatusNotFound:
		return "the provider has no such endpoint"
	}
	switch e.Class {
	case ClassAuth:
		return "the API key was refused"
	case ClassRateLimited:
		return "rate limited"
	case ClassOverloaded:
		return "the provider is overloaded"
	case ClassServer:
		return "the provider failed"
	case ClassBadRequest:
		return "the request was rejected"
	case ClassMalformed:
		return "the response could not be read"
	case ClassNetwork:
		return "no answer from the provider"
	}
	return "request failed"
}

// Advice says what a person can do about the error, in a few words.
func (e *Error) Advice() string {
	wait := ""
	if e.RetryAfter > 0 {
		wait = "the model provider asked me to wait " + HumanDuration(e.RetryAfter)
	}
	switch {
	case e.ModelNotFound():
		return "check the model name and that this provider serves it (an Ollama model must be pulled first); retrying will not help"
	case e.Status == http.StatusNotFound:
		return "check the base URL (an OpenAI-compatible server's usually ends in /v1); retrying will not help"
	}
	switch e.Class {
	case ClassAuth:
		if e.Status == http.StatusForbidden {
			return "check the API key and what it is allowed to use"
		}
		return "check the API key"
	case ClassRateLimited:
		if wait != "" {
			return wait
		}
		return "wait a little, then try again"
	case ClassOverloaded, ClassServer:
		if wait != "" {
			return wait
		}
		return "try again in a few minutes"
	case ClassBadRequest:
		return "this is a bug in mnemo, retrying will not help"
	case ClassMalformed:
		return "check that the base URL points at a compatible API"
	case ClassNetwork:
		return "check the network and the base URL"
	}
	return ""
}

// HumanDuration says d the way a person would: "5 minutes", "30 seconds".
func HumanDuration(d time.Duration) string {
	unit := func(n int64, name string) string {
		if n == 1 {
			return "1 " + name
		}
		return strconv.FormatInt(n, 10) + " " + name + "s"
	}
	switch {
	case d < time.Second:
		return "a moment"
	case d < time.Minute:
		return unit(int64(math.Round(d.Seconds())), "second")
	case d < time.Hour:
		return unit(int64(math.Round(d.Minutes())), "minute")
	default:
		return unit(int64(math.Round(d.Hours())), "hour")
	}
}

// classFor maps an HTTP status to a class.
func classFor(status int) Class {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ClassAuth
	case status == http.StatusTooManyRequests:
		return ClassRateLimited
	case status == 529 || status == http.StatusServiceUnavailable:
		return ClassOverloaded
	case status == http.StatusRequestTimeout:
		return ClassNetwork
	case status >= 500:
		return ClassServer
	case status >= 400:
		return ClassBadRequest
	}
	return ClassMalformed
}

// classForType maps an error type sent inside a stream, where there is no
// HTTP status to go by, to a class.
func classForType(typ string) Class {
	switch typ {
	case "authentication_error", "permission_error", "invalid_api_key":
		return ClassAuth
	case "rate_limit_error", "rate_limit_exceeded", "tokens", "requests":
		return ClassRateLimited
	case "overloaded_error":
		return ClassOverloaded
	case "invalid_request_error", "not_found_error", "request_too_large":
		return ClassBadRequest
	}
	return ClassServer
}

// transportError classifies an error that is not an API error: the provider
// sent no usable answer.
func transportError(provider string, err error) *Error {
	e := &Error{Provider: provider, Class: ClassNetwork, Message: redact(err.Error()), err: err}
	if isDecodeError(err) {
		e.Class = ClassMalformed
	}
	return e
}

// isDecodeError reports whether err comes from reading a response body that
// arrived, rather than from the connection. Both SDKs return such errors as
// plain wrapped errors, so the JSON error types are the reliable signal.
func isDecodeError(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "error parsing response json") ||
		strings.Contains(msg, "expected destination type")
}

// contextError returns ctx's error when err is only the consequence of the
// caller's context ending; that is the caller's doing, not a provider error,
// and must stay recognisable with errors.Is(err, context.DeadlineExceeded).
func contextError(ctx context.Context, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	return nil
}

// retryAfter reads how long the provider asked us to wait: retry-after-ms
// (milliseconds, used by both providers), then Retry-After in seconds or as
// an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && !math.IsInf(ms, 0) {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || math.IsNaN(s) || s > math.MaxInt64/float64(time.Second) {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// keyLike matches API keys as providers echo them in messages ("Incorrect
// API key provided: sk-ab***yz"), so they never reach a log through us.
var keyLike = regexp.MustCompile(`\b(sk|pk|rk|key)-[A-Za-z0-9_\-*.]{3,}`)

func redact(msg string) string {
	return keyLike.ReplaceAllString(msg, "[redacted key]")
}
