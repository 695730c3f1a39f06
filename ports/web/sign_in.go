package web

import (
	"errors"
	"net/http"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

// signInForm is the sign-in page's form, as typed (never the password).
type signInForm struct {
	Email  string
	Next   string
	Errors fieldErrors
}

func (s *Server) showSignIn(w http.ResponseWriter, r *http.Request, csrf string) {
	if _, ok := s.visitorOf(r); ok {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "sign-in", view{Title: "Sign in", CSRF: csrf,
		Notice: notices[r.URL.Query().Get("notice")], Data: signInForm{Next: r.URL.Query().Get("next")}})
}

// signIn checks the email and password (the account's Argon2id hash) and
// sets the session cookie the JSON API accepts too.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request, csrf string) {
	form := signInForm{Email: r.PostFormValue("email"), Next: r.PostFormValue("next")}
	again := func(status int, problems fieldErrors) {
		form.Errors = problems
		s.render(w, r, status, "sign-in", view{Title: "Sign in", CSRF: csrf, Alert: problems[""], Data: form})
	}
	if ok, msg := s.allowAttempt(r, form.Email); !ok {
		again(http.StatusTooManyRequests, fieldErrors{"": msg})
		return
	}
	if !s.slots.Acquire(r.Context(), portkit.PasswordCheckWait) {
		again(http.StatusTooManyRequests, fieldErrors{"": msgBusy})
		return
	}
	out, err := s.app.Commands.SignIn.Handle(r.Context(), application.SignIn{
		Email: form.Email, Password: r.PostFormValue("password"), RequestID: requestIDOf(r)})
	s.slots.Release()
	if err != nil {
		if errors.Is(err, application.ErrWrongCredentials) {
			again(http.StatusUnauthorized, fieldErrors{"": application.ErrWrongCredentials.Message})
			return
		}
		if problems, ok := formProblem(err, map[string]string{"email": "email", "password": "password"}); ok {
			again(http.StatusBadRequest, problems)
			return
		}
		s.failed(w, r, err)
		return
	}
	s.setSession(w, out.SessionToken, out.ExpiresAt)
	http.Redirect(w, r, safeNext(form.Next), http.StatusSeeOther)
}

// notices are the good news a redirect may ask a page to show (?notice=…):
// fixed words, so a crafted link cannot put text on a page.
var notices = map[string]string{
	"signed-out":               "You are signed out.",
	"registered":               "Welcome to formd! We sent you an email: follow its link to verify your address.",
	"verification-sent":        "A new verification email is on its way to the recipient.",
	"token-revoked":            "The token is revoked: it no longer works anywhere.",
	"settings-saved":           "Settings saved.",
	"settings-saved-recipient": "Settings saved. We emailed the new recipient a link: live submissions are refused until they follow it.",
	"settings-restored":        "Settings restored: the trail below shows the restore. A restored recipient email is verified again, as after any change of recipient.",
	"integration-saved":        "Integration saved.",
	"integration-test-queued":  "A test message is queued: its outcome shows in Deliveries in a moment.",
	"webhook-secret-rotated":   "The webhook has a new signing secret. The previous one keeps signing for a while, so receivers can switch over.",
	"delivery-retried":         "The delivery is queued again: it goes out in a moment.",
	"test-inbox-cleared":       "The test inbox is empty.",
	"submission-erased":        "The submission is erased: its fields and files are gone for good.",
	"spam-released":            "Released: its deliveries are queued; the spam filter learned it is not spam.",
	"spam-released-unlearned":  "Released: its deliveries are queued; the spam filter could not be taught.",
	"spam-shredded":            "Shredded as spam; the spam filter learned it is spam.",
	"spam-shredded-unlearned":  "Shredded as spam; the spam filter could not be taught.",
	"spam-deleted":             "Deleted: its fields and files are gone for good; the spam filter was not taught.",
	"password-reset-sent":      "If a formd account uses that address, a link to set a new password is on its way to it. The link expires in one hour.",
}
