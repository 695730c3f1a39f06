package mailtest

import (
	"io"
	"net"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// Received is one email as the SMTP server got it: the envelope and the
// parsed message.
type Received struct {
	From string
	To   []string
	Message
}

// Server is an SMTP server on 127.0.0.1 without authentication or TLS.
// Recipients given to StartServer are refused at RCPT TO with a permanent
// 550; Defer has a recipient refused a few times with a transient 451.
type Server struct {
	// Addr is host:port to send to.
	Addr string

	srv      *smtp.Server
	mu       sync.Mutex
	got      []Received
	refuse   map[string]bool
	deferred map[string]int
	conns    map[*smtp.Conn]bool // open connections
	sessions int
	rcpts    map[string]int
}

// StartServer listens on a free loopback port; Close stops it.
func StartServer(refuse ...string) (*Server, error) {
	s := &Server{refuse: map[string]bool{}, deferred: map[string]int{}, conns: map[*smtp.Conn]bool{}, rcpts: map[string]int{}}
	for _, r := range refuse {
		s.refuse[r] = true
	}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sessions++
		s.conns[c] = true
		return &session{s: s, conn: c}, nil
	}))
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.Addr = l.Addr().String()
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// Defer has the next n RCPT TO commands for rcpt answered with a transient
// 451 (a greylisting server, say), and those after it accepted.
func (s *Server) Defer(rcpt string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deferred[rcpt] = n
}

// Sessions counts the SMTP sessions clients opened so far: one per
// connection (a STARTTLS connection would count two; this server offers none).
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// Open counts the connections open now.
func (s *Server) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// RcptAttempts counts the RCPT TO commands for rcpt, refused ones included.
func (s *Server) RcptAttempts(rcpt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rcpts[rcpt]
}

// DropConnections closes every open connection without a goodbye, as a
// server that restarts or times idle clients out does.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := make([]*smtp.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Received returns every email received so far, in order.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.got...)
}

type session struct {
	s    *Server
	conn *smtp.Conn
	from string
	to   []string
}

func (x *session) Reset() { x.from, x.to = "", nil }

// Logout runs when the connection closes.
func (x *session) Logout() error {
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	delete(x.s.conns, x.conn)
	return nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.s.mu.Lock()
	x.s.rcpts[to]++
	x.s.mu.Unlock()
	if x.s.refuse[to] {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	x.s.mu.Lock()
	deferred := x.s.deferred[to] > 0
	if deferred {
		x.s.deferred[to]--
	}
	x.s.mu.Unlock()
	if deferred {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "greylisted, try again later"}
	}
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := Parse(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, Message: "unparsable message: " + err.Error()}
	}
	x.s.mu.Lock()
	x.s.got = append(x.s.got, Received{From: x.from, To: append([]string(nil), x.to...), Message: m})
	x.s.mu.Unlock()
	return nil
}
