// Package llm owns mnemo's model layer: the chat-model interface the agent
// loop talks to (Model, and Streamer for text as it is generated), the
// embedding interface (Embedder), and their real providers, Anthropic
// Messages and OpenAI Chat Completions and Embeddings (which also serve any
// OpenAI-compatible server through a base URL), driven through the official
// SDKs.
//
// It is also the one place that:
//   - asks for structured answers (Request.Schema: response_format
//     json_schema on OpenAI, a forced tool call on Anthropic) and validates
//     them (CompleteJSON);
//   - classifies provider failures into *Error, so no caller imports an SDK;
//   - retries 429 and 5xx, honouring Retry-After within the caller's deadline
//     (the SDKs' own retries are off).
//
// llm depends only on the SDKs, jsonschema and zerolog. It must not import
// memory, agent, learn, slackapp, tools, threads, db or cmd: those call llm,
// never the other way round. Nothing here logs prompt or answer text, or keys.
package llm
