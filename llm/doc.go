// Package llm owns the chat-model interface mnemo's agent loop talks to, and
// its two real providers: Anthropic Messages and OpenAI Chat Completions
// (which also serves any OpenAI-compatible server through a base URL).
package llm
