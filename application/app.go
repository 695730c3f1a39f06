// Package application holds formd's use cases: one command or query per
// file, each a handler with one Handle(ctx, cmd) method, gathered here. The
// interfaces (ports) the use cases need from adapters live beside the
// records that cross them, in files named for their topic (*_port.go);
// adapters implement them and cmd/formd binds them with wire.
package application

// Application gathers formd's use cases for the driving ports (HTTP, the
// event router and delivery workers, the CLI).
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands change state.
type Commands struct {
	Register             *RegisterHandler
	VerifyLink           *VerifyLinkHandler
	RequestPasswordReset *RequestPasswordResetHandler
	ResetPassword        *ResetPasswordHandler
	CreateForm           *CreateFormHandler
	UpdateForm           *UpdateFormHandler
	// RestoreFormVersion brings back an earlier version's settings.
	RestoreFormVersion          *RestoreFormVersionHandler
	ResendRecipientVerification *ResendRecipientVerificationHandler
	Submit                      SubmitCommand
	// GrantFeature, RevokeFeature and SetPlan are the operator's `formd
	// grant`, `formd revoke` and `formd plan set`.
	GrantFeature  *GrantFeatureHandler
	RevokeFeature *RevokeFeatureHandler
	SetPlan       *SetPlanHandler
	// QueueDelivery handles events from its consumer group, and
	// RecordPoisonedMessage keeps the messages any group fails on for good;
	// Deliver is run by the delivery workers (verification mails included).
	QueueDelivery         *QueueDeliveryHandler
	RecordPoisonedMessage *RecordPoisonedMessageHandler
	Deliver               *DeliverHandler
	// RetryDelivery re-queues a failed delivery (the delivery log).
	RetryDelivery *RetryDeliveryHandler
	// ConfigureIntegration and RotateWebhookSecret manage a form's
	// integrations and its webhook's signing secret.
	ConfigureIntegration *ConfigureIntegrationHandler
	// TestIntegration queues a sample delivery to one of them.
	TestIntegration     *TestIntegrationHandler
	RotateWebhookSecret *RotateWebhookSecretHandler
	// CreateWorkspaceToken and RevokeWorkspaceToken manage workspace API
	// tokens (sessions only).
	CreateWorkspaceToken *CreateWorkspaceTokenHandler
	RevokeWorkspaceToken *RevokeWorkspaceTokenHandler

	// Advanced uploads.
	ReserveUpload *ReserveUploadHandler
	ReceiveObject *ReceiveObjectHandler
	CleanUploads  *CleanUploadsHandler

	// SignIn and SignOut are the dashboard's: a session for an existing
	// account's password, and the end of one session.
	SignIn  *SignInHandler
	SignOut *SignOutHandler

	// ClearTestInbox empties a form's test inbox.
	ClearTestInbox *ClearTestInboxHandler
	// EraseSubmissions shreds archived submissions at an owner's request.
	EraseSubmissions *EraseSubmissionsHandler
	// SpamFolder lists the submissions the spam gate held and carries out
	// the owner's review of each.
	SpamFolder *SpamFolderHandler
	// MarkSpam marks as spam the submission a notification mail's spam
	// link names.
	MarkSpam *MarkSpamHandler
}

// Queries read state and change nothing.
type Queries struct {
	Authenticate     *AuthenticateHandler
	VerificationLink *VerificationLinkHandler
	// SpamLink checks a notification mail's spam link for its page.
	SpamLink *SpamLinkHandler
	// HostedPage words the hosted success and error pages of plain posts.
	HostedPage  *HostedPageHandler
	ListForms   *ListFormsHandler
	FormHistory *FormHistoryHandler
	// FormVersion and CompareFormVersions read a form's settings as of any
	// version and how two versions differ.
	FormVersion *FormVersionHandler
	// ExportAudit writes a form's audit bundle for an auditor.
	ExportAudit           *ExportAuditHandler
	CompareFormVersions   *CompareFormVersionsHandler
	RecipientVerification *RecipientVerificationHandler
	ListDeliveries        *ListDeliveriesHandler
	DeliveryDetails       *DeliveryDetailsHandler
	ListIntegrations      *ListIntegrationsHandler
	// ReadSubmissions lists, reads and exports the submissions archive, and
	// shows who did.
	ReadSubmissions *ReadSubmissionsHandler
	// AccountOverview and AccountHistory show the caller's account: plan,
	// entitlements, this month's usage, and its audit trail.
	AccountOverview     *AccountOverviewHandler
	AccountHistory      *AccountHistoryHandler
	ListWorkspaces      *ListWorkspacesHandler
	ListWorkspaceTokens *ListWorkspaceTokensHandler
	// WebhookSigningSecrets is for the delivery workers, which will sign
	// webhook deliveries with it; no route shows a secret.
	WebhookSigningSecrets *WebhookSigningSecretsHandler
	// IssueChallenge makes formd's proof-of-work challenges (GET /challenge).
	IssueChallenge *IssueChallengeHandler

	// DownloadObject serves the built-in store's download links.
	DownloadObject *DownloadObjectHandler
	// FileAllowance tells the submit port how much file content a
	// multipart post may bring before its files are read.
	FileAllowance *FileAllowanceHandler

	// FormSubmissionCounts is each form's live submissions this month, and
	// RequestForgeryTokens the dashboard's per-session CSRF tokens.
	FormSubmissionCounts *FormSubmissionCountsHandler
	RequestForgeryTokens *RequestForgeryTokenHandler

	// ReadTestInbox lists what a form's test submissions would have sent.
	ReadTestInbox *ReadTestInboxHandler
	// PreviewTemplates renders a form's mails with unsaved templates.
	PreviewTemplates *PreviewTemplatesHandler
	// DevelopmentMail shows the mails spooled in development mode.
	DevelopmentMail *ReadDevelopmentMailHandler
}
