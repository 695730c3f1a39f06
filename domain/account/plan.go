package account

import (
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/domain"
)

// Plan is what an account pays for: its monthly submission quota and the
// features that come with it. Manual grants are apart from it, per feature,
// and outlive a change of plan.
type Plan string

// The plans. An account is on PlanFree until an operator sets another.
const (
	PlanFree     Plan = "free"
	PlanPro      Plan = "pro"
	PlanLifetime Plan = "lifetime"
)

// Plans lists every plan, cheapest first.
var Plans = []Plan{PlanFree, PlanPro, PlanLifetime}

// planFeatures are the features each plan includes: the spec makes wildcard
// allowed domains part of Pro and Lifetime; every other paid feature stays a
// manual grant.
var planFeatures = map[Plan][]string{
	PlanPro:      {FeatureWildcardDomains},
	PlanLifetime: {FeatureWildcardDomains},
}

// archiveRetentionDays is the longest each plan may keep archived
// submissions (form.Archive).
var archiveRetentionDays = map[Plan]int{
	PlanFree:     30,
	PlanPro:      365,
	PlanLifetime: 365,
}

// ArchiveRetentionDays is the longest a form of an account on the plan may
// keep archived submissions.
func (p Plan) ArchiveRetentionDays() int { return archiveRetentionDays[p] }

// Features are the features the plan includes, sorted.
func (p Plan) Features() []string { return slices.Clone(planFeatures[p]) }

// Includes reports whether the plan comes with feature.
func (p Plan) Includes(feature string) bool { return slices.Contains(planFeatures[p], feature) }

// PlansIncluding lists the plans that come with feature, so a read model can
// answer "does this account hold it" with one look at the account's plan.
func PlansIncluding(feature string) []Plan {
	var out []Plan
	for _, p := range Plans {
		if p.Includes(feature) {
			out = append(out, p)
		}
	}
	return out
}

// ParsePlan reads a plan name as an operator types it.
func ParsePlan(s string) (Plan, error) {
	p := Plan(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(Plans, p) {
		return "", domain.Invalid("plan", "plan must be one of %s, not %q", joinPlans(), strings.TrimSpace(s))
	}
	return p, nil
}

func joinPlans() string {
	names := make([]string, len(Plans))
	for i, p := range Plans {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// Features lists every paid or manual feature an operator may grant.
var Features = []string{FeatureServerSide, FeatureCC, FeatureWebhook, FeatureUploads, FeatureCrossRedirect, FeatureWildcardDomains}

// checkFeature refuses a name that is no feature, so a typo in `formd grant`
// or `formd revoke` is caught instead of recorded.
func checkFeature(feature string) error {
	if !slices.Contains(Features, feature) {
		return domain.Invalid("feature", "feature must be one of %s, not %q", strings.Join(Features, ", "), feature)
	}
	return nil
}

// Event type names of plans and revocations, as stored.
const (
	PlanChangedType    = "account.plan_changed.v1"
	FeatureRevokedType = "account.feature_revoked.v1"
)

// PlanChanged records that an operator moved the account to Plan (`formd
// plan set`). Previous is the plan it left, kept for the audit trail.
type PlanChanged struct {
	Plan     Plan
	Previous Plan
	At       time.Time
}

// EventType implements Event.
func (PlanChanged) EventType() string { return PlanChangedType }

// FeatureRevoked records that an operator withdrew a manual grant (`formd
// revoke`). A feature the plan includes stays held through the plan.
type FeatureRevoked struct {
	Feature string
	At      time.Time
}

// EventType implements Event.
func (FeatureRevoked) EventType() string { return FeatureRevokedType }

// SetPlan records an operator's change of plan; setting the plan the account
// is on changes nothing.
func (a *Account) SetPlan(p Plan, now time.Time) error {
	if !slices.Contains(Plans, p) {
		return domain.Invalid("plan", "plan must be one of %s", joinPlans())
	}
	if p != a.Plan() {
		a.record(PlanChanged{Plan: p, Previous: a.Plan(), At: now.UTC()})
	}
	return nil
}

// RevokeFeature records an operator's withdrawal of a manual grant.
// grantedBeforeEvents says the read model holds a grant of feature made
// before grants were events, which the stream cannot know. Revoking a feature
// the account was never granted is refused, so the operator learns that
// nothing changed (for a feature of the plan: change the plan instead).
func (a *Account) RevokeFeature(feature string, grantedBeforeEvents bool, now time.Time) error {
	feature = strings.TrimSpace(feature)
	if err := checkFeature(feature); err != nil {
		return err
	}
	if !a.features[feature] && !grantedBeforeEvents {
		msg := "the account has no manual grant of %s"
		if a.Plan().Includes(feature) {
			msg += "; its " + string(a.Plan()) + " plan includes it: change the plan to take it away"
		}
		return domain.Invalid("feature", msg, feature)
	}
	a.record(FeatureRevoked{Feature: feature, At: now.UTC()})
	return nil
}

// Plan is the account's plan.
func (a *Account) Plan() Plan {
	if a.plan == "" {
		return PlanFree
	}
	return a.plan
}

// Grants are the features granted to the account by hand (as recorded on its
// stream), sorted.
func (a *Account) Grants() []string {
	var out []string
	for f, held := range a.features {
		if held {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// Entitled lists the features an account holds: its plan's and its manual
// grants, sorted, each once.
func Entitled(p Plan, grants []string) []string {
	out := append(p.Features(), grants...)
	slices.Sort(out)
	return slices.Compact(out)
}
