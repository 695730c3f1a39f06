// Command relaypeer is the benchmark's relay peer: a well-made Go form
// relay of the kind that forwards each submission as a mail and keeps
// nothing. Each POST /submit is read as JSON or a form, needs an access_key,
// and is rendered as a plain-text mail that is handed to an SMTP server
// within the request: the 200 goes back only once the server has answered
// 250 to the message, a failure is a 502. SMTP connections are kept open
// and reused, as a relay under steady load would.
//
// The bench sets formd beside it at everyday load (1 to 128 clients): formd
// stores every submission durably and delivers its mail afterwards, and must
// still accept at least as many per second as the relay does and spend
// little CPU per delivered submission. The bench builds and starts it
// (bench/relay.go); it is not part of formd and links none of its packages.
//
//	relaypeer -listen 127.0.0.1:8091 -smtp 127.0.0.1:2525 [-from relay@example.com] [-to inbox@example.com]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8091", "address to serve on")
	smtpAddr := flag.String("smtp", "", "SMTP server to send the mails to, host:port")
	from := flag.String("from", "relay@example.com", "envelope sender and From of every mail")
	to := flag.String("to", "inbox@example.com", "recipient of every mail")
	flag.Parse()
	if *smtpAddr == "" {
		fmt.Fprintln(os.Stderr, "relaypeer: -smtp is required")
		os.Exit(2)
	}
	if err := serve(*listen, newMailer(*smtpAddr, *from, *to)); err != nil {
		log.Fatalf("relaypeer: %v", err)
	}
}

// serve runs the relay until SIGTERM or SIGINT, then lets the requests in
// flight finish and closes the idle SMTP connections.
func serve(listen string, m *mailer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	defer m.Close()
	srv := &http.Server{Addr: listen, Handler: newHandler(m), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
