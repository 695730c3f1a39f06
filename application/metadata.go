package application

// Actor is who caused a change: an account acting through a session, a
// workspace token, an agent session, or the system itself.
type Actor struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Actor types recorded in event metadata.
const (
	ActorSession = "session"
	// ActorToken is a workspace API token; its id is the token's id, as
	// GET /v1/workspaces/{id}/tokens lists it, never the token.
	ActorToken  = "token"
	ActorAgent  = "agent"
	ActorLink   = "verification_link"
	ActorSystem = "system"
	// ActorSubmitter is a public submission; its id is a keyed hash of the
	// client IP (submitterID), never the address.
	ActorSubmitter = "submitter"
	// ActorOperator runs formd's command line (`formd plan set`, `formd grant`,
	// `formd revoke`); its id is the OS user who ran it.
	ActorOperator = "operator"
	// ActorAnonymous is a caller without a credential asking for a password
	// reset link; it has no id, the link it asks for goes to the mailbox.
	ActorAnonymous = "anonymous"
	// ActorTelegram is the operator's bot relaying a connect code sent from
	// a chat; its id names the chat.
	ActorTelegram = "telegram"
	// ActorMailLink is the "this was spam" link of a notification mail;
	// its id is the submission the link names. Whoever reads the mail may
	// follow it, so it names no account.
	ActorMailLink = "mail_link"
)

// Metadata travels with every stored event: the actor, the HTTP request that
// caused it and the chain of causes.
type Metadata struct {
	Actor         Actor  `json:"actor"`
	AccountID     string `json:"accountId,omitempty"`
	RequestID     string `json:"requestId,omitempty"`
	CausationID   string `json:"causationId,omitempty"`
	CorrelationID string `json:"correlationId,omitempty"`
}
