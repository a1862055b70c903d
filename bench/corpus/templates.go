package corpus

// template is one kind of sentence people ask the bot to remember, with the
// retrieval cues a model's review writes for it. scopes lists where it may
// be stored: p personal, c conversation, h channel, w workspace.
type template struct {
	scopes    string
	kind      string
	text      string
	cues      string
	sensitive string
}

var templates = []template{
	// A person's preferences.
	{"p", "preference", "Prefers {editor} for editing code", "editor, text editor, IDE, coding setup, which editor, dev environment", ""},
	{"p", "preference", "Prefers terse PR summaries with the risks listed first", "pull request, PR summary, code review, summary format, how to summarize", ""},
	{"p", "preference", "Wants replies in {tongue}", "language, reply language, translation, which language to answer in", ""},
	{"p", "preference", "Prefers meetings after {clock} {tz}", "meetings, scheduling, calendar, availability, when to meet", ""},
	{"p", "preference", "Likes answers as short bullet points rather than paragraphs", "answer format, bullets, response style, brevity, how to reply", ""},
	{"p", "preference", "Prefers {lang} for scripts and internal tooling", "programming language, scripting, tooling, which language to use", ""},
	{"p", "preference", "Wants to be paged only for SEV1 incidents on {service}", "paging, on-call, alerts, incidents, notifications, pager", ""},
	{"p", "preference", "Prefers code examples in {lang}", "code samples, examples, programming language, snippets", ""},
	{"p", "preference", "Prefers async updates in Slack over status meetings", "status updates, meetings, async, communication style", ""},
	{"p", "preference", "Likes to review {service} changes before they ship", "code review, approvals, reviewer, deploy sign-off", ""},
	{"p", "preference", "Prefers dates written as ISO 8601", "date format, formatting, dates, timestamps", ""},
	{"p", "preference", "Wants a digest of {tool} alerts at the start of each day", "daily digest, alerts, morning summary, notifications", ""},

	// What a person said about themselves.
	{"p", "knowledge", "Located in {city} and uses {tz}", "timezone, time zone, what time, local time, location, where based, {abbr}", ""},
	{"p", "knowledge", "Is the tech lead of the {team} team", "role, team lead, who leads, responsibilities, title", ""},
	{"p", "knowledge", "Works from the {city} office on {day}s", "office, location, in-person days, where, schedule", ""},
	{"p", "knowledge", "Owns the {service} runbook", "runbook, owner, responsibilities, documentation, who maintains", ""},
	{"p", "knowledge", "Has a standing 1:1 with their manager on {day}s at {clock}", "one on one, manager, meetings, calendar, schedule", ""},
	{"p", "knowledge", "Is on the {service} on-call rotation every fourth week", "on-call, rotation, pager, schedule, availability", ""},
	{"p", "knowledge", "Is allergic to peanuts", "allergy, food, diet, lunch, catering, dietary restrictions", "health"},
	{"p", "knowledge", "Speaks {tongue} and English", "languages, spoken languages, translation, fluency", ""},
	{"p", "knowledge", "Joined the company in {month} and works on {service}", "start date, tenure, team, project, background", ""},
	{"p", "knowledge", "Is out of office for the last week of {month}", "vacation, time off, OOO, availability, leave", ""},

	// How things are done.
	{"hw", "procedure", "Deploys of the {service} service go out on {day}s after QA sign-off", "deploy, release, ship, rollout, deploy schedule, when do we deploy", ""},
	{"hw", "procedure", "To roll back {service}, rerun the previous release in {tool} and post in #incidents", "rollback, revert, undo a deploy, bad release, incident", ""},
	{"hc", "procedure", "Before merging to main, run the {service} integration tests against {env}", "merge, CI, tests, pull request checks, integration tests", ""},
	{"hw", "procedure", "Hotfixes for {service} need approval from the {team} on-call", "hotfix, approval, emergency change, on-call, sign-off", ""},
	{"h", "procedure", "Database migrations for {service} run through {tool} during the {day} maintenance window", "schema migration, database change, maintenance window, DB", ""},
	{"hw", "procedure", "New joiners on the {team} team request {tool} access through the IT portal", "access, permissions, onboarding, accounts, new hire", ""},
	{"hc", "procedure", "Release notes for {service} are drafted in {tool} and posted on {day}s", "release notes, changelog, announcement, what shipped", ""},
	{"hw", "procedure", "Incidents on {service} are declared in #incidents with the /incident command", "incident, outage, declare, escalation, SEV", ""},
	{"h", "procedure", "Feature flags for {service} are cleaned up every {month} during tech debt week", "feature flags, toggles, cleanup, tech debt", ""},
	{"hc", "procedure", "Load tests for {service} run in {env} before every major release", "performance, load testing, capacity, benchmarks", ""},
	{"c", "procedure", "Replies in this thread should be in {tongue}", "language, reply language, translation", ""},

	// What is known.
	{"hc", "knowledge", "The {env} database for {service} is refreshed nightly at {clock} UTC", "database refresh, data reset, nightly job, DB copy, test data", ""},
	{"hw", "knowledge", "The {service} dashboards live in {tool} under the {team} folder", "dashboards, metrics, monitoring, graphs, where to look", ""},
	{"hw", "knowledge", "The {service} API is rate limited to {n} requests per minute per workspace", "rate limit, quota, throttling, API limits", ""},
	{"hw", "knowledge", "{service} logs are kept for {n} days in {tool}", "log retention, logs, how long, storage, observability", ""},
	{"hwc", "knowledge", "The {service} service is written in {lang} and runs on {tool}", "stack, language, tech stack, platform, infrastructure", ""},
	{"hw", "knowledge", "The {team} standup is at {clock} on weekdays in the {room} room", "standup, daily meeting, sync, schedule, meeting room", ""},
	{"hc", "knowledge", "Build time for {service} dropped to {n} minutes after enabling remote caching", "build speed, CI duration, caching, pipeline", ""},
	{"hc", "knowledge", "Response time alerts for {service} fire above {n} ms at the 95th percentile", "latency, alerting, SLO, performance, thresholds", ""},
	{"hw", "knowledge", "The {team} team demo is at lunch time every other {day}", "demo, show and tell, team meeting, presentations", ""},
	{"hc", "knowledge", "The on-call handover for {service} happens at {clock} local time on {day}s", "handover, on-call, rotation, shift change", ""},
	{"hw", "knowledge", "Code freeze for {service} starts two days before each quarterly release", "freeze, release schedule, merge window, quarter", ""},
	{"w", "knowledge", "Expense reports are due on the {n}th of each month in {tool}", "expenses, reimbursement, finance, receipts, deadline", ""},
	{"w", "knowledge", "The office wifi network is called {room}-guest", "wifi, internet, network, office, guest network", ""},
	{"hw", "knowledge", "The {room} meeting room has the only working video conferencing setup", "meeting room, video calls, conferencing, office", ""},
	{"hw", "knowledge", "{tool} is the source of truth for {team} roadmaps", "roadmap, planning, source of truth, priorities", ""},
	{"hw", "knowledge", "Support tickets about {service} go to the {team} queue in {tool}", "support, tickets, triage, routing, customer issues", ""},
	{"hw", "knowledge", "The {service} SLA is 99.9 percent monthly uptime", "SLA, uptime, availability, reliability, commitments", ""},
	{"hw", "knowledge", "Production access to {service} requires a {tool} break-glass request", "access, production, break glass, permissions, security", ""},

	// What a thread settled.
	{"c", "knowledge", "In this thread, the plan is to migrate {service} to {tool} by {month}", "migration plan, timeline, roadmap, decision", ""},
	{"c", "knowledge", "This incident was caused by a bad config push to {service}", "root cause, incident, postmortem, outage cause", ""},
	{"c", "knowledge", "For this launch, the {team} team owns the announcement", "launch, announcement, owner, comms", ""},
	{"c", "knowledge", "The decision in this thread is to keep {service} on {lang} for now", "decision, language choice, rewrite, outcome", ""},
	{"c", "procedure", "Action items from this review go into {tool} with the {team} label", "action items, follow-ups, tasks, tracking", ""},
}

// suffixes vary the sentences, as people's phrasing does.
var suffixes = []string{
	" for the {team} team", " since {month}", " (agreed with the {team} leads)", " unless {name} says otherwise",
	" according to {name}", " as of the {month} offsite",
}

// question is what a person asks, as a message to the bot (the auto-recall
// query) and as the model's short recall-tool query.
type question struct {
	message, tool string
}

var questions = []question{
	{"how do we deploy the {service} service?", "{service} deploy schedule"},
	{"what time is it for me right now?", "my timezone"},
	{"which editor should I set up on the new laptop?", "editor preference"},
	{"can you summarize this PR for me?", "PR summary format"},
	{"how do I roll back {service} if the release goes bad?", "{service} rollback"},
	{"when is the {env} database refreshed?", "{env} database refresh"},
	{"where are the {service} dashboards?", "{service} dashboards"},
	{"who should approve a hotfix for {service}?", "{service} hotfix approval"},
	{"what's the rate limit on the {service} API?", "{service} rate limit"},
	{"how long do we keep {service} logs around?", "{service} log retention"},
	{"when is the {team} standup and where?", "{team} standup"},
	{"what language should I write this {service} script in?", "scripting language"},
	{"when are expense reports due this month?", "expense reports"},
	{"what's the office wifi called?", "office wifi"},
	{"please draft the release notes for {service}", "{service} release notes"},
	{"what do I need to run before merging to main in {service}?", "{service} integration tests merge"},
	{"how do I get access to {tool}?", "{tool} access"},
	{"what did we decide about {service} in this thread?", "{service} decision"},
	{"can we find a time to meet tomorrow afternoon?", "meeting preferences"},
	{"should I page someone about this {service} incident?", "{service} paging"},
	{"what caused the incident we're discussing?", "incident root cause"},
	{"how fast is the {service} build these days?", "{service} build time"},
	{"when is the code freeze for {service}?", "{service} code freeze"},
	{"what is the uptime commitment for {service}?", "{service} SLA uptime"},
	{"where do support tickets for {service} go?", "{service} support tickets"},
	{"how should you format answers for me?", "answer format"},
}

// typos are misspellings the recall tool's fuzzy match is for.
var typos = [][2]string{
	{"deploy", "depoly"}, {"database", "databse"}, {"dashboards", "dashbaords"}, {"rollback", "rolback"},
	{"schedule", "schedul"}, {"standup", "standpu"}, {"expense", "expence"}, {"retention", "retension"},
}
