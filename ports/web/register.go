package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/ports/portkit"
)

// registerForm is the registration page's form, as typed (never the password).
type registerForm struct {
	Email  string
	Name   string
	Errors fieldErrors
	// MinPassword is the shortest password accepted.
	MinPassword int
}

func (s *Server) showRegister(w http.ResponseWriter, r *http.Request, csrf string) {
	s.render(w, r, http.StatusOK, "register", view{Title: "Create your account", CSRF: csrf,
		Data: registerForm{MinPassword: account.MinPasswordLength}})
}

// register creates the account through the same use case as POST
// /agent/auth, which mails the verification link, and signs the person in.
func (s *Server) register(w http.ResponseWriter, r *http.Request, csrf string) {
	form := registerForm{Email: r.PostFormValue("email"), Name: r.PostFormValue("name"), MinPassword: account.MinPasswordLength}
	password := r.PostFormValue("password")
	again := func(status int, problems fieldErrors) {
		form.Errors = problems
		s.render(w, r, status, "register", view{Title: "Create your account", CSRF: csrf, Alert: problems[""], Data: form})
	}
	switch {
	case form.Email == "":
		again(http.StatusBadRequest, fieldErrors{"email": "Enter your email address."})
		return
	case password == "":
		// Register without a password makes a password-less account: the
		// dashboard always asks for one.
		again(http.StatusBadRequest, fieldErrors{"password": "Choose a password."})
		return
	}
	if ok, msg := s.allowAttempt(r, form.Email); !ok {
		again(http.StatusTooManyRequests, fieldErrors{"": msg})
		return
	}
	giveBack := func() {}
	if l := s.config.Registrations; l != nil {
		ok, wait, back := l.Take(portkit.AddrKey(s.proxies.clientIP(r)), time.Now())
		if !ok {
			portkit.SetRetryAfter(w.Header(), wait)
			again(http.StatusTooManyRequests, fieldErrors{"": msgTooManyRegistrations})
			return
		}
		giveBack = back
	}
	if !s.slots.Acquire(r.Context(), portkit.PasswordCheckWait) {
		giveBack()
		again(http.StatusTooManyRequests, fieldErrors{"": msgBusy})
		return
	}
	out, err := s.app.Commands.Register.Handle(r.Context(), application.Register{
		Email: form.Email, Name: form.Name, Password: password, RequestID: requestIDOf(r), Language: s.requestLanguage(r)})
	s.slots.Release()
	if !application.TellsAccountExists(out, err) {
		giveBack()
	}
	if errors.Is(err, account.ErrEmailTaken) {
		again(http.StatusBadRequest, fieldErrors{"email": "An account already exists for this email. Sign in instead, or reset its password."})
		return
	}
	if err != nil {
		if problems, ok := formProblem(err, map[string]string{"email": "email", "password": "password", "name": "name"}); ok {
			again(http.StatusBadRequest, problems)
			return
		}
		s.failed(w, r, err)
		return
	}
	s.setSession(w, out.SessionToken, out.ExpiresAt)
	target := Prefix + "/forms?notice=registered"
	if out.Existing { // the account's own password: a sign-in
		target = Prefix + "/forms"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}
