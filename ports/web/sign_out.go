package web

import (
	"net/http"

	"github.com/formd/formd/application"
)

// signOut ends the session in the database (not only in this browser) and
// removes the cookie.
func (s *Server) signOut(w http.ResponseWriter, r *http.Request, v *visitor) {
	if err := s.app.Commands.SignOut.Handle(r.Context(), application.SignOut{SessionToken: v.token, RequestID: requestIDOf(r)}); err != nil {
		s.failed(w, r, err)
		return
	}
	s.clearSession(w)
	http.Redirect(w, r, Prefix+"/sign-in?notice=signed-out", http.StatusSeeOther)
}
