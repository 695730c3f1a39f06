package account

// Feature names of paid or manually granted entitlements, as `formd grant`
// takes them and the entitlements read model stores them.
const (
	FeatureServerSide      = "server_side_submissions"
	FeatureCC              = "cc_recipients"
	FeatureWebhook         = "per_submit_webhook"
	FeatureUploads         = "file_uploads"
	FeatureCrossRedirect   = "cross_domain_redirect"
	FeatureWildcardDomains = "advanced_domains"
)

// Entitlements are the features an account is known to hold. A decision is
// given the features it may consult, looked up beforehand, so the rule itself
// stays pure; a feature it was not given counts as not held.
type Entitlements struct {
	granted map[string]bool
}

// NewEntitlements holds the given features.
func NewEntitlements(features ...string) Entitlements {
	e := Entitlements{granted: make(map[string]bool, len(features))}
	for _, f := range features {
		e.granted[f] = true
	}
	return e
}

// Has reports whether the account holds feature.
func (e Entitlements) Has(feature string) bool { return e.granted[feature] }
