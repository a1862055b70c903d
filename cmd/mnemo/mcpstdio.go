package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// drainingStdio sits between mcp-go's stdio server and the process's
// streams. mcp-go cancels the requests in flight when its input ends, so a
// client that writes its calls and closes stdin (a script, a pipe) lost
// the answers; here the end of input is passed on only once every request
// read has been answered, or after drainLimit.
type drainingStdio struct {
	in    io.Reader
	out   io.Writer
	ctx   context.Context
	limit time.Duration

	mu      sync.Mutex
	pending map[string]bool // ids of requests read and not yet answered
	changed chan struct{}   // closed and replaced when pending changes
	inLine  []byte
	outLine []byte
}

// drainLimit bounds the wait at the end of input for calls in flight.
const drainLimit = 30 * time.Second

func newDrainingStdio(ctx context.Context, in io.Reader, out io.Writer) *drainingStdio {
	return &drainingStdio{in: in, out: out, ctx: ctx, limit: drainLimit, pending: map[string]bool{}, changed: make(chan struct{})}
}

// messageID is a JSON-RPC message's id and whether it is a request (it has
// a method) or a response.
func messageID(line []byte) (id string, request bool, ok bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return "", false, false
	}
	return string(m.ID), m.Method != "", true
}

// lines calls f for each complete line in *buf after p is added to it.
func lines(buf *[]byte, p []byte, f func(line []byte)) {
	*buf = append(*buf, p...)
	for {
		i := bytes.IndexByte(*buf, '\n')
		if i < 0 {
			return
		}
		f((*buf)[:i])
		*buf = (*buf)[i+1:]
	}
}

func (d *drainingStdio) note() {
	close(d.changed)
	d.changed = make(chan struct{})
}

func (d *drainingStdio) Read(p []byte) (int, error) {
	n, err := d.in.Read(p)
	if n > 0 {
		d.mu.Lock()
		lines(&d.inLine, p[:n], func(line []byte) {
			if id, request, ok := messageID(line); ok && request {
				d.pending[id] = true
			}
		})
		d.mu.Unlock()
	}
	if err == io.EOF {
		d.drain()
	}
	return n, err
}

// drain waits until every request read has been answered.
func (d *drainingStdio) drain() {
	deadline := time.NewTimer(d.limit)
	defer deadline.Stop()
	for {
		d.mu.Lock()
		left, changed := len(d.pending), d.changed
		d.mu.Unlock()
		if left == 0 {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			return
		case <-d.ctx.Done():
			return
		}
	}
}

func (d *drainingStdio) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	d.mu.Lock()
	lines(&d.outLine, p[:n], func(line []byte) {
		if id, request, ok := messageID(line); ok && !request && d.pending[id] {
			delete(d.pending, id)
			d.note()
		}
	})
	d.mu.Unlock()
	return n, err
}
