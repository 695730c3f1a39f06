package web

import (
	"io/fs"
	"net/http"
)

// routes lists every page and action. A GET shows a page; a POST changes
// something and redirects (303) or shows the page again with its errors.
func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /{$}", s.home)
	static, _ := fs.Sub(assets, "static")
	m.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", staticFiles(static)))

	m.HandleFunc("GET "+Prefix+"/sign-in", s.anonymous(s.showSignIn))
	m.HandleFunc("POST "+Prefix+"/sign-in", s.anonymous(s.signIn))
	m.HandleFunc("GET "+Prefix+"/register", s.anonymous(s.showRegister))
	m.HandleFunc("POST "+Prefix+"/register", s.anonymous(s.register))
	m.HandleFunc("POST "+Prefix+"/sign-out", s.signedIn(s.signOut))
	m.HandleFunc("GET "+Prefix+"/password-reset", s.anonymous(s.showPasswordReset))
	m.HandleFunc("POST "+Prefix+"/password-reset", s.anonymous(s.requestPasswordReset))

	m.HandleFunc("GET "+Prefix, s.signedIn(s.redirectTo(Prefix+"/forms")))
	m.HandleFunc("GET "+Prefix+"/{$}", s.signedIn(s.redirectTo(Prefix+"/forms")))
	m.HandleFunc("GET "+Prefix+"/forms", s.signedIn(s.listForms))
	m.HandleFunc("GET "+Prefix+"/forms/new", s.signedIn(s.showNewForm))
	m.HandleFunc("POST "+Prefix+"/forms", s.signedIn(s.createForm))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}", s.signedIn(s.showForm))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/recipient-verifications", s.signedIn(s.resendVerification))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/audit", s.signedIn(s.showAudit))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/audit/export", s.signedIn(s.exportAudit))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/versions/{version}", s.signedIn(s.showVersion))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/versions/{version}/restore", s.signedIn(s.restoreVersion))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/settings", s.signedIn(s.showSettings))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/settings", s.signedIn(s.saveSettings))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/settings/templates", s.signedIn(s.saveTemplates))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/integrations", s.signedIn(s.showIntegrations))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/integrations/{type}", s.signedIn(s.configureIntegration))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/integrations/{type}/test", s.signedIn(s.testIntegration))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/integrations/webhook/rotate-secret", s.signedIn(s.rotateWebhookSecret))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/playground", s.signedIn(s.showPlayground))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/playground", s.signedIn(s.runPlayground))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/deliveries", s.signedIn(s.showDeliveries))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/deliveries/{deliveryID}", s.signedIn(s.showDelivery))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/deliveries/{deliveryID}/retry", s.signedIn(s.retryDelivery))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/submissions", s.signedIn(s.showSubmissions))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/submissions/erase", s.signedIn(s.eraseSubmitter))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/submissions/{submissionID}", s.signedIn(s.showSubmission))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/submissions/{submissionID}/erase", s.signedIn(s.eraseSubmission))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/submissions/{submissionID}/attachments/{index}", s.signedIn(s.downloadAttachment))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/spam", s.signedIn(s.showSpam))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/spam/{submissionID}", s.signedIn(s.showHeld))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/spam/{submissionID}/review", s.signedIn(s.reviewHeld))
	m.HandleFunc("GET "+Prefix+"/forms/{formID}/test-inbox", s.signedIn(s.showTestInbox))
	m.HandleFunc("POST "+Prefix+"/forms/{formID}/test-inbox/clear", s.signedIn(s.clearTestInbox))

	m.HandleFunc("GET "+Prefix+"/account", s.signedIn(s.showAccount))
	m.HandleFunc("GET "+Prefix+"/tokens", s.signedIn(s.listTokens))
	m.HandleFunc("POST "+Prefix+"/tokens", s.signedIn(s.createToken))
	m.HandleFunc("POST "+Prefix+"/tokens/{workspaceID}/{tokenID}/revoke", s.signedIn(s.revokeToken))

	m.HandleFunc("GET "+devMailPath, s.showDevMail)

	m.HandleFunc(Prefix+"/", s.notFound)
}

// redirectTo answers with a redirect to path.
func (s *Server) redirectTo(path string) signedInHandler {
	return func(w http.ResponseWriter, r *http.Request, _ *visitor) {
		http.Redirect(w, r, path, http.StatusSeeOther)
	}
}

// home sends a signed-in person to the dashboard, anyone else to sign in.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.visitorOf(r); ok {
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, Prefix+"/sign-in", http.StatusSeeOther)
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.errorPage(w, r, http.StatusNotFound, "")
}
