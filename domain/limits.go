package domain

// Limits the domain's rules are judged against.
const (
	// MaxFieldValueBytes is the longest value one submitted field may have
	// (repeated names joined). The HTTP port refuses longer ones.
	MaxFieldValueBytes = 32 << 10

	// RegexBudget bounds the regex matching one submission may cost, in
	// steps: a value's length in bytes times the compiled size of the rule
	// matched against it, summed over the form's regex rules: ample for any
	// reasonable form, and small enough that no submission holds a core for
	// long. A form whose rules could exceed it on the longest values is
	// refused when it is saved, and a submission that would exceed it anyway
	// (rules saved before the budget existed) is refused, not matched.
	RegexBudget = 1 << 26
)
