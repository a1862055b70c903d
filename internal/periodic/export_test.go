package periodic

// RunOn is Run on the ticks a test sends.
var RunOn = run
