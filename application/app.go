package application

// Application gathers formd's use cases for the driving ports.
type Application struct {
	Commands Commands
	Queries  Queries
}

// Commands change state.
type Commands struct {
	Register              *RegisterHandler
	VerifyLink            *VerifyLinkHandler
	Forms                 *FormsHandler
	SendVerificationEmail *SendVerificationEmailHandler
	Submit                *SubmitHandler
}

// Queries read state.
type Queries struct {
	Authenticate *Authenticator
	// Forms answers GET /v1/forms, a form's history and its verification state.
	Forms *FormsHandler
}
