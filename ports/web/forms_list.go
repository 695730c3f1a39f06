package web

import (
	"net/http"

	"github.com/formd/formd/application"
)

// formRow is one line of the forms list.
type formRow struct {
	ID, Name, Recipient, KeyPrefix string
	RecipientVerified              bool
	ThisMonth                      int
}

// formsPage is the forms list with the account's verification state.
type formsPage struct {
	Forms []formRow
	// Email and EmailVerified say whether the account may create forms yet.
	Email         string
	EmailVerified bool
}

func (s *Server) listForms(w http.ResponseWriter, r *http.Request, v *visitor) {
	s.showForms(w, r, v, http.StatusOK, notices[r.URL.Query().Get("notice")], "")
}

// showForms draws the list, with good news or a problem above it.
func (s *Server) showForms(w http.ResponseWriter, r *http.Request, v *visitor, status int, notice, alert string) {
	ctx := r.Context()
	forms, err := s.app.Queries.ListForms.Handle(ctx, application.ListForms{Caller: v.Session})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	counts, err := s.app.Queries.FormSubmissionCounts.Handle(ctx, application.FormSubmissionCounts{Caller: v.Session})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	acc, err := s.app.Queries.AccountOverview.Handle(ctx, application.AccountOverview{Caller: v.Session})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	page := formsPage{Email: acc.Email, EmailVerified: acc.EmailVerified}
	// Newest first: the form just made is at the top.
	for i := len(forms) - 1; i >= 0; i-- {
		f := forms[i]
		page.Forms = append(page.Forms, formRow{ID: f.ID, Name: f.Settings.Name, Recipient: f.Settings.RecipientEmail,
			KeyPrefix: f.AccessKeyPrefix, RecipientVerified: f.RecipientVerified, ThisMonth: counts[f.ID]})
	}
	s.render(w, r, status, "forms", view{Title: "Forms", Section: "forms", Visitor: v, Notice: notice, Alert: alert, Data: page})
}

// resendVerification mails the form's recipient a new verification link.
func (s *Server) resendVerification(w http.ResponseWriter, r *http.Request, v *visitor) {
	id, ok := formIDOf(r)
	if !ok {
		s.errorPage(w, r, http.StatusNotFound, "")
		return
	}
	_, err := s.app.Commands.ResendRecipientVerification.Handle(r.Context(), application.ResendRecipientVerification{
		Caller: v.Session, RequestID: requestIDOf(r), Language: s.requestLanguage(r), FormID: id})
	if err != nil {
		if problems, ok := formProblem(err, nil); ok {
			s.showForms(w, r, v, http.StatusBadRequest, "", problems[""])
			return
		}
		s.failed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/forms?notice=verification-sent", http.StatusSeeOther)
}
