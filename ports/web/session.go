package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/formd/formd/application"
)

// visitor is a signed-in person: their session and its CSRF token.
type visitor struct {
	Session application.Session
	// token is the session token from the cookie; never shown or logged.
	token string
	// CSRF is the token every form of the page posts back.
	CSRF string
}

// signedInHandler is a page or action for a signed-in person.
type signedInHandler func(w http.ResponseWriter, r *http.Request, v *visitor)

// visitorOf reads the session cookie and checks it with the application
// (the check the JSON API makes of the same cookie).
func (s *Server) visitorOf(r *http.Request) (*visitor, bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, false
	}
	session, err := s.app.Queries.Authenticate.Handle(r.Context(), application.Authenticate{Credential: c.Value, Cookie: true})
	if err != nil {
		if !errors.Is(err, application.ErrUnauthenticated) {
			s.log.Error("authenticate failed", "requestId", requestIDOf(r), "err", err)
		}
		return nil, false
	}
	return &visitor{Session: session, token: c.Value, CSRF: s.app.Queries.RequestForgeryTokens.Token(c.Value)}, true
}

// signedIn runs h for a signed-in person. Anyone else is sent to sign in
// (and back here afterwards, for a page). A POST must carry the session's
// CSRF token: without it, or with another, it is a 403 page.
func (s *Server) signedIn(h signedInHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok := s.visitorOf(r)
		if !ok {
			target := Prefix + "/sign-in"
			if r.Method == http.MethodGet {
				target += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost && !s.app.Queries.RequestForgeryTokens.Valid(v.token, r.PostFormValue(csrfField)) {
			s.refuseForgery(w, r)
			return
		}
		h(w, r, v)
	}
}

// setSession gives the browser the session cookie: HttpOnly, SameSite=Lax,
// Secure when formd's address is https.
func (s *Server) setSession(w http.ResponseWriter, token string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: token, Path: "/", Expires: expires,
		MaxAge: int(time.Until(expires).Seconds()), HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// clearSession removes the session cookie.
func (s *Server) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// safeNext is where to go after signing in: a dashboard path, never
// another site (an open redirect).
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, Prefix) || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Prefix + "/forms"
	}
	return next
}
