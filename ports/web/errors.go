package web

import (
	"errors"
	"net/http"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// fieldErrors are a form's problems: the field's name → what to fix. The
// empty name is the form as a whole.
type fieldErrors map[string]string

// formProblem turns a refusal the person can fix into the words to show and
// the field they belong to ("" for the whole form); ok is false for every
// other error, which the caller answers with an error page.
func formProblem(err error, fieldNames map[string]string) (fieldErrors, bool) {
	var invalid *domain.InvalidInputError
	switch {
	case errors.As(err, &invalid):
		field := fieldNames[invalid.Field]
		if field == "" && invalid.Field != "" {
			return fieldErrors{"": invalid.Field + ": " + invalid.Message}, true
		}
		return fieldErrors{field: upperFirst(invalid.Message)}, true
	case errors.Is(err, domain.ErrNotFound), errors.Is(err, application.ErrUnauthenticated),
		errors.Is(err, application.ErrUnavailable):
		return nil, false // a page of their own, not a form's problem
	}
	// Refusals the person can act on, in the API's words.
	msg, ok := application.PublicMessage(err)
	if !ok {
		return nil, false
	}
	return fieldErrors{"": msg}, true
}

// failed answers an error no form shows: not found (another account's
// thing too) is a 404 page, an expired session a new sign-in, an outage of
// the database a 500 page that says to try again, anything else a 500 page
// whose detail stays in the log.
func (s *Server) failed(w http.ResponseWriter, r *http.Request, err error) {
	err = s.config.Database.Unavailable(err)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		s.errorPage(w, r, http.StatusNotFound, "")
	case errors.Is(err, application.ErrUnauthenticated):
		http.Redirect(w, r, Prefix+"/sign-in", http.StatusSeeOther)
	case errors.Is(err, application.ErrUnavailable):
		s.log.Warn("database unavailable", "requestId", requestIDOf(r), "route", r.Pattern, "err", err)
		s.config.Database.Lost()
		s.unavailable(w, r)
	default:
		if problems, ok := formProblem(err, nil); ok {
			s.errorPage(w, r, http.StatusBadRequest, problems[""])
			return
		}
		s.log.Error("request failed", "requestId", requestIDOf(r), "route", r.Pattern, "err", err)
		s.errorPage(w, r, http.StatusInternalServerError, "")
	}
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
