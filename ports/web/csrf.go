package web

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
)

// csrfField is the hidden field of every dashboard form.
const csrfField = "csrf_token"

// preSessionCookie holds a random id for the forms a person posts before
// having a session (sign in, register): their CSRF token is derived from
// it the way a session's is from the session, so another site can neither
// read nor forge it, and cannot sign a visitor in to its own account.
const preSessionCookie = "dashboard.presession"

// anonymousHandler is a page or action for someone who is not signed in.
type anonymousHandler func(w http.ResponseWriter, r *http.Request, csrf string)

// anonymous runs h with the pre-session's CSRF token, making the pre-session
// on a first visit; a POST must carry that token or is a 403 page.
func (s *Server) anonymous(h anonymousHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := ""
		if c, err := r.Cookie(preSessionCookie); err == nil && len(c.Value) >= 32 {
			id = c.Value
		}
		if r.Method == http.MethodPost {
			if !s.app.Queries.RequestForgeryTokens.Valid(preSessionCredential(id), r.PostFormValue(csrfField)) {
				s.refuseForgery(w, r)
				return
			}
		} else if id == "" {
			var b [32]byte
			_, _ = rand.Read(b[:])
			id = base64.RawURLEncoding.EncodeToString(b[:])
			http.SetCookie(w, &http.Cookie{Name: preSessionCookie, Value: id, Path: Prefix, HttpOnly: true,
				Secure: s.secure, SameSite: http.SameSiteStrictMode})
		}
		h(w, r, s.app.Queries.RequestForgeryTokens.Token(preSessionCredential(id)))
	}
}

// preSessionCredential keeps pre-session ids apart from session tokens, so
// the CSRF token of one is never the other's; an empty id stays empty (no
// token is valid for it).
func preSessionCredential(id string) string {
	if id == "" {
		return ""
	}
	return "presession:" + id
}

// refuseForgery answers a POST without its CSRF token.
func (s *Server) refuseForgery(w http.ResponseWriter, r *http.Request) {
	s.errorPage(w, r, http.StatusForbidden,
		"This form was sent without a valid security token. It may have expired: go back, reload the page and try again.")
}
