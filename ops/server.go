package ops

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/detect"
)

// Check is one condition of readiness; Check returns nil when it holds.
type Check struct {
	Name  string
	Check func(ctx context.Context) error
}

// Server serves /healthz, /readyz and /metrics. Build it with Listen.
type Server struct {
	ln  net.Listener
	srv *http.Server
	mux *http.ServeMux
	log zerolog.Logger
}

// Handle adds a route (the OAuth install flow) beside the operator's.
// Call it before Serve.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// checkTimeout bounds all of /readyz's checks together.
const checkTimeout = 2 * time.Second

// Listen binds addr, so that a port already taken fails at start, before
// anything else runs; Serve then answers on it.
func Listen(addr string, m *Metrics, ready []Check, log zerolog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("MNEMO_HTTP_ADDR %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), checkTimeout)
		defer cancel()
		if failed := runChecks(ctx, ready, log); len(failed) > 0 {
			http.Error(w, "not ready: "+strings.Join(failed, "; "), http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	if m != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, Timeout: 10 * time.Second}))
	}
	// The install routes (Handle) may be exposed to the internet.
	return &Server{ln: ln, log: log, mux: mux, srv: HTTPServer(mux, log)}, nil
}

// HTTPServer is an http.Server for handler with every server timeout set,
// for routes a client on the internet may reach: a slow or idle client
// holds nothing for long. Its own error lines (a handler's panic, a
// refused connection) go to log, and so through the redactor, not to
// the standard logger.
func HTTPServer(handler http.Handler, log zerolog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          stdlog.New(log.With().Str("component", "http").Logger(), "", 0),
	}
}

// ListenHandler binds addr (named by the variable that set it, for the
// error) for handler, with every server timeout set: Slack's HTTP routes
// are exposed to the internet, so a slow or idle client can hold nothing
// for long.
func ListenHandler(variable, addr string, handler http.Handler, log zerolog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", variable, addr, err)
	}
	return &Server{ln: ln, log: log, srv: HTTPServer(handler, log)}, nil
}

// Addr is the address the server listens on (useful with port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve answers until Shutdown.
func (s *Server) Serve() {
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Error().Err(err).Msg("operator HTTP server stopped")
	}
}

// Shutdown stops the server, waiting for requests in flight up to ctx.
func (s *Server) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// runChecks runs the checks at once and returns the failures, in order,
// each as its check's name and a short reason (readyReason). The whole
// error goes to log, at debug: a probe that fails every few seconds would
// fill the log at any higher level.
func runChecks(ctx context.Context, checks []Check, log zerolog.Logger) []string {
	errs := make([]error, len(checks))
	done := make(chan int, len(checks))
	for i, c := range checks {
		go func() { errs[i] = c.Check(ctx); done <- i }()
	}
	for range checks {
		<-done
	}
	var failed []string
	for i, err := range errs {
		if err != nil {
			log.Debug().Err(err).Str("check", checks[i].Name).Msg("not ready")
			failed = append(failed, checks[i].Name+": "+readyReason(err))
		}
	}
	return failed
}

// reasonLimit bounds each failure's reason in /readyz's answer, in bytes.
const reasonLimit = 120

// readyReason is err as /readyz shows it: its first line, secrets redacted
// (a dependency's error may quote a URL with its key, or a connection
// string), cut to reasonLimit. The answer is for a probe and whoever reads
// it, not a log: the whole error is logged, at debug.
func readyReason(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	s = detect.Redact(s)
	if len(s) <= reasonLimit {
		return s
	}
	cut := reasonLimit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
