// Package lifecycle decides how long mnemo keeps people's data: a River
// periodic job deletes, in batches, what is past its retention (Sweep).
// Erasing a person is db.Erase; this package holds the settings and the
// job. See docs/lifecycle.md.
//
// It imports db, and River for the job.
package lifecycle
