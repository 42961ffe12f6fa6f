package engine

// Limiter counts calls against the limits of rules. (Filled in by the rate-limit work.)
type Limiter interface{}
