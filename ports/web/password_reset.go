package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/portkit"
)

// passwordResetForm is the forgotten-password page's form, as typed.
type passwordResetForm struct {
	Email  string
	Errors fieldErrors
}

func (s *Server) showPasswordReset(w http.ResponseWriter, r *http.Request, csrf string) {
	s.render(w, r, http.StatusOK, "password-reset", view{Title: "Forgot your password?", CSRF: csrf, Data: passwordResetForm{}})
}

// requestPasswordReset mails the address's account a link to set a new
// password, through the same command as POST /agent/auth/password-reset. It
// says the same words whether or not an account uses the address, so the
// page tells nobody which addresses have accounts.
func (s *Server) requestPasswordReset(w http.ResponseWriter, r *http.Request, csrf string) {
	in := passwordResetForm{Email: strings.TrimSpace(r.PostFormValue("email"))}
	again := func(status int, problems fieldErrors) {
		in.Errors = problems
		s.render(w, r, status, "password-reset", view{Title: "Forgot your password?", CSRF: csrf, Alert: problems[""], Data: in})
	}
	if in.Email == "" {
		again(http.StatusBadRequest, fieldErrors{"email": "Enter the email address you signed up with"})
		return
	}
	// Only the per-IP bucket here: the limit per address is the
	// application's, the same for every route and counted in PostgreSQL.
	if ok, msg := s.allowAttempt(r, ""); !ok {
		again(http.StatusTooManyRequests, fieldErrors{"": msg})
		return
	}
	err := s.app.Commands.RequestPasswordReset.Handle(r.Context(), application.RequestPasswordReset{Email: in.Email, RequestID: requestIDOf(r), Language: s.requestLanguage(r)})
	var tooMany *domain.TooManyRequestsError
	if errors.As(err, &tooMany) {
		portkit.SetRetryAfter(w.Header(), tooMany.RetryAfter)
		again(http.StatusTooManyRequests, fieldErrors{"": tooMany.Message})
		return
	}
	if err != nil {
		if problems, ok := formProblem(err, map[string]string{"email": "email"}); ok {
			again(http.StatusBadRequest, problems)
			return
		}
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/sign-in?notice=password-reset-sent", http.StatusSeeOther)
}
