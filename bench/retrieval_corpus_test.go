package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

var update = flag.Bool("update", false, "rewrite testdata/retrieval.json")

// The labelled corpus is written from this file: the answers and the
// questions by hand, the distractors from templates. `go test ./bench
// -run TestRetrievalCorpus -update` rewrites testdata/retrieval.json;
// without -update the test fails when the file is stale.

const labelTeam = "TEVAL01"

var labelNames = []string{
	"Alice Chen", "Bob Martins", "Carol Diaz", "Dan Okafor", "Erin Walsh", "Frank Weber", "Grace Kim", "Heidi Novak",
	"Ivan Petrov", "Judy Alvarez", "Karl Berg", "Lena Fischer", "Mallory Stone", "Nina Rossi", "Oscar Lind", "Peggy Moore",
	"Quinn Silva", "Rupert Hale", "Sybil Park", "Trent Osei", "Uma Iyer", "Victor Lang", "Wendy Cho", "Xavier Ruiz",
	"Yara Haddad", "Zoe Turner", "Amir Farouk", "Bea Lopez", "Chen Wei", "Dario Conti", "Elif Demir", "Femi Adeyemi",
	"Gita Rao", "Hugo Martin", "Ines Costa", "Jonas Berg", "Kaito Sato", "Lucia Gomez", "Mateo Rivas", "Noor Aziz",
	"Omar Khan", "Priya Nair", "Rosa Ortiz", "Sam Taylor", "Tara Singh", "Ugo Bianchi", "Vera Ivanova", "Will Baker",
	"Xena Park", "Yusuf Ali",
}

var labelChannels = []struct{ id, name, vis, topic string }{
	{"C01", "general", "public", "company"}, {"C02", "engineering", "public", "engineering"},
	{"C03", "deploys", "public", "deploy pipeline"}, {"C04", "payments", "public", "payments"},
	{"C05", "oncall", "public", "on-call"}, {"C06", "design", "public", "design"},
	{"C07", "data", "public", "data warehouse"}, {"C08", "security", "private", "security"},
	{"C09", "support", "public", "support queue"}, {"C10", "mobile", "public", "mobile app"},
	{"C11", "frontend", "public", "web app"}, {"C12", "backend", "public", "API"},
	{"C13", "infra", "public", "infrastructure"}, {"C14", "product", "public", "product"},
	{"C15", "marketing", "public", "marketing site"}, {"C16", "sales", "private", "sales pipeline"},
	{"C17", "hiring", "private", "hiring"}, {"C18", "finance", "public", "finance"},
	{"C19", "random", "public", "office"}, {"C20", "incidents", "public", "incident"},
}

func person(i int) string { return fmt.Sprintf("U%02d", i) }

// target is an answer: a memory a question is about. tag names the kind
// of fact, so no distractor of the same person says the same kind of thing.
type target struct {
	LabelledMemory
	tag string
}

func t(id, tag, scope, kind, actor, channel, thread, content, cues string, age int) target {
	return target{LabelledMemory{ID: id, Scope: scope, Kind: kind, Actor: actor, Channel: channel, Thread: thread,
		Content: content, Cues: splitCues(cues), AgeDays: age}, tag}
}

func splitCues(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

const said = "1700000000.000100" // the thread the answers were said in, unless noted

// The answers, with cues as a model's review writes them: the words and
// short questions of someone who would need the memory, written from the
// memory alone.
var targets = []target{
	t("T01", "timezone", "personal", "knowledge", "U01", "C01", said, "Located in San Francisco and uses Pacific Time", "timezone, time zone, what time is it, local time, PT, Pacific, where based, location", 90),
	t("T02", "editor", "personal", "preference", "U02", "C02", said, "Prefers Neovim for editing code", "editor, text editor, IDE, vim, coding setup, which editor, dev tools", 60),
	t("T03", "summary", "personal", "preference", "U03", "C02", said, "Prefers terse PR summaries with the risks listed first", "pull request, PR summary, code review, summary format, how to summarize, changes overview", 30),
	t("T04", "reply-language", "personal", "preference", "U04", "DU04", said, "Wants replies in Spanish", "language, reply language, translation, Español, which language to answer in", 20),
	t("T05", "diet", "personal", "knowledge", "U05", "C19", said, "Is vegetarian and avoids fish", "diet, food, lunch, catering, dietary restrictions, meal order, allergies", 200),
	t("T06", "office", "personal", "knowledge", "U06", "C01", said, "Works from the Berlin office on Tuesdays and Thursdays", "office days, in-person, location, where to find, schedule, hybrid", 45),
	t("T07", "format", "personal", "preference", "U07", "C02", said, "Likes answers as short bullet points", "answer format, bullets, response style, brevity, concise, how to reply", 15),
	t("T08", "meetings", "personal", "preference", "U08", "C14", said, "Prefers meetings after 10am Eastern Time", "meeting times, scheduling, calendar, availability, when to book a call, mornings, ET", 70),
	t("T09", "role", "personal", "knowledge", "U09", "C10", said, "Is the tech lead of the mobile team", "role, team lead, who leads mobile, title, responsibilities", 300),
	t("T10", "scripting", "personal", "preference", "U10", "C13", said, "Prefers Python for scripts and internal tooling", "programming language, scripting, tooling, which language to use, automation", 40),
	t("T11", "alerts", "personal", "preference", "U11", "C05", said, "Wants a morning digest of Sentry alerts", "daily summary, alerts, errors, notifications, morning report, monitoring", 25),
	t("T12", "one-on-one", "personal", "knowledge", "U12", "C01", said, "Has a standing 1:1 with her manager on Wednesdays at 2pm", "one on one, manager meeting, calendar, weekly sync, availability", 35),
	t("T13", "leave", "personal", "knowledge", "U13", "C01", said, "Is on parental leave until the end of March", "out of office, OOO, availability, time off, leave, return date", 50),
	t("T14", "", "channel", "procedure", "U14", "C03", said, "Deploys go out on Tuesdays and Thursdays after QA sign-off", "release schedule, shipping days, when do we ship, rollout, deploy days", 120),
	t("T15", "", "channel", "procedure", "U15", "C03", said, "To roll back a release, rerun the previous tag in ArgoCD and post in #incidents", "rollback, revert, undo a deploy, bad release, incident", 100),
	t("T16", "", "channel", "knowledge", "U16", "C04", said, "The payments API is rate limited to 100 requests per second per merchant", "throttling, quota, API limits, 429 errors", 80),
	t("T17", "", "channel", "procedure", "U17", "C04", said, "Refunds over 500 dollars need approval from the finance lead", "refund approval, sign-off, money back, large refunds, finance", 60),
	t("T18", "", "channel", "knowledge", "U18", "C05", said, "The on-call rotation hands over every Monday at 10am Eastern", "pager, schedule, handover, shift change, who is on call", 150),
	t("T19", "", "channel", "procedure", "U19", "C05", said, "Page the database on-call for any replication lag over five minutes", "escalation, Postgres, DB alerts, replicas, paging policy", 90),
	t("T20", "", "channel", "knowledge", "U20", "C06", said, "Design reviews happen on Fridays at 3pm in the Atlas room", "critique, design crit, feedback session, weekly review", 40),
	t("T21", "", "channel", "knowledge", "U21", "C06", said, "The source of truth for UI components is the Figma library called Foundations", "design system, components, mockups, where are the designs", 200),
	t("T22", "", "channel", "knowledge", "U22", "C07", said, "The warehouse is refreshed nightly at 2am UTC from production", "data refresh, ETL, nightly job, Snowflake, freshness", 110),
	t("T23", "", "channel", "knowledge", "U23", "C07", said, "Dashboards for revenue live in Looker under the Finance folder", "reports, BI, metrics, where to find charts", 75),
	t("T24", "", "channel", "procedure", "U24", "C08", said, "Production access requires a break-glass request in Vault", "permissions, prod access, credentials, emergency access, security", 140),
	t("T25", "", "channel", "procedure", "U25", "C08", said, "Laptops must use full-disk encryption and a screen lock after 5 minutes", "device policy, encryption, compliance, laptop security", 160),
	t("T26", "", "channel", "procedure", "U26", "C09", said, "Escalate enterprise tickets to the support lead within one hour", "escalation, SLA, enterprise customers, urgent tickets, priority support", 55),
	t("T27", "", "channel", "knowledge", "U27", "C09", said, "Support macros live in Zendesk under Shared", "canned responses, templates, saved replies", 95),
	t("T28", "", "channel", "knowledge", "U28", "C10", said, "iOS builds are signed with the App Store Connect key in Bitrise", "code signing, certificates, release build, iPhone app", 130),
	t("T29", "", "channel", "procedure", "U29", "C11", said, "Use pnpm, not npm, for the web monorepo", "package manager, install dependencies, node modules, yarn", 65),
	t("T30", "", "channel", "procedure", "U30", "C12", said, "Services must expose health checks on /healthz", "liveness, readiness probe, monitoring, Kubernetes", 210),
	t("T31", "", "channel", "procedure", "U31", "C13", said, "Terraform changes are applied only through Atlantis on pull requests", "infrastructure as code, plan and apply, IaC workflow", 180),
	t("T32", "", "channel", "procedure", "U32", "C14", said, "Feature requests go into the Linear triage queue, not Slack threads", "ideas, product feedback, requests, backlog, where to file", 85),
	t("T33", "", "channel", "procedure", "U33", "C15", said, "Blog posts need legal review before publishing", "content approval, articles, publishing process, compliance", 95),
	t("T34", "", "channel", "procedure", "U34", "C16", said, "Discounts above 20 percent need VP of Sales approval", "pricing, deal desk, approvals, quotes", 70),
	t("T35", "", "channel", "procedure", "U35", "C17", said, "Interview feedback must be submitted in Greenhouse within 24 hours", "scorecards, candidates, recruiting, hiring process", 125),
	t("T36", "", "channel", "knowledge", "U36", "C18", said, "Expense reports are due on the 5th of each month", "reimbursement, receipts, expenses deadline", 140),
	t("T37", "", "workspace", "knowledge", "U37", "C01", said, "The office wifi network is called mnemo-guest", "internet, wireless, network name, office", 250),
	t("T38", "", "workspace", "knowledge", "U37", "C01", said, "The company holiday calendar is in Notion under People", "public holidays, days off, vacation calendar, PTO", 240),
	t("T39", "", "channel", "procedure", "U38", "C20", said, "Declare incidents with the /incident command and pick a severity", "outage, site down, SEV, how to report an outage, escalation", 170),
	t("T40", "", "channel", "knowledge", "U39", "C02", said, "Code freeze starts two days before each quarterly release", "merge freeze, release schedule, quarter end, no merges", 60),
	t("T41", "", "conversation", "knowledge", "U40", "C02", "1700000300.000100", "In this thread, the plan is to migrate search to OpenSearch by June", "migration plan, timeline, decision", 10),
	t("T42", "", "conversation", "knowledge", "U41", "C12", "1700000400.000100", "This incident was caused by an expired TLS certificate on the API gateway", "root cause, postmortem, outage cause, cert", 5),
	t("T43", "dates", "personal", "preference", "U14", "C02", said, "Prefers dates written as ISO 8601", "date format, formatting, timestamps", 55),
	t("T44", "runbook", "personal", "knowledge", "U15", "C12", said, "Owns the billing runbook", "runbook owner, documentation, who maintains, billing docs", 100),
	t("T45", "samples", "personal", "preference", "U16", "C11", said, "Wants code examples in TypeScript", "programming language, snippets, samples", 30),
	t("T46", "spoken", "personal", "knowledge", "U17", "C01", said, "Speaks Portuguese and English", "languages, fluency, translation", 400),
	t("T47", "async", "personal", "preference", "U18", "C02", said, "Prefers async updates in Slack over status meetings", "status updates, standups, communication style, written updates", 65),
	t("T48", "project", "personal", "knowledge", "U19", "C01", said, "Joined the company in April and works on checkout", "start date, tenure, team, project", 330),
	t("T49", "paging", "personal", "preference", "U20", "C05", said, "Wants to be paged only for SEV1 incidents", "paging, on-call, alerts, notifications, wake me up", 45),
	t("T50", "screenshots", "personal", "preference", "U21", "C15", said, "Likes dark mode screenshots in docs", "theme, screenshots, documentation style", 35),
}

const asked = "1800000000.000100" // a new thread, where most questions are asked

func q(id, asker, channel, thread, text string, paraphrase bool, relevant ...string) LabelledQuery {
	return LabelledQuery{ID: id, Asker: asker, Channel: channel, Thread: thread, Text: text, Paraphrase: paraphrase, Relevant: relevant}
}

// The questions, as people type them to the bot. A paraphrase shares no
// word with its answer's content (TestRetrievalCorpus checks it).
var queries = []LabelledQuery{
	q("Q01", "U01", "C04", asked, "what time is it for me?", false, "T01"),
	q("Q02", "U01", "C02", asked, "which timezone am I in?", true, "T01"),
	q("Q03", "U02", "C02", asked, "what editor do I like?", true, "T02"),
	q("Q04", "U02", "C11", asked, "set up neovim on my new laptop", false, "T02"),
	q("Q05", "U03", "C02", asked, "summarize this PR for me", false, "T03"),
	q("Q06", "U03", "C12", asked, "how should you write up pull request reviews for me?", true, "T03"),
	q("Q07", "U04", "C01", asked, "what language should you answer me in?", true, "T04"),
	q("Q08", "U05", "C19", asked, "order lunch for me for the offsite", true, "T05"),
	q("Q09", "U06", "C02", asked, "which days am I in the Berlin office?", false, "T06"),
	q("Q10", "U06", "C14", asked, "when will I be in person this week?", true, "T06"),
	q("Q11", "U07", "C03", asked, "how do you reply to me, tl;dr style?", true, "T07"),
	q("Q12", "U08", "C14", asked, "when should I book a call with me on the calendar?", true, "T08"),
	q("Q13", "U08", "C01", asked, "what time do I take meetings?", false, "T08"),
	q("Q14", "U09", "C10", asked, "what's my role here?", true, "T09"),
	q("Q15", "U10", "C13", asked, "which programming language do I reach for?", true, "T10"),
	q("Q16", "U10", "C02", asked, "write me a script to clean up old branches", false, "T10"),
	q("Q17", "U11", "C05", asked, "what errors should I see first thing each day?", true, "T11"),
	q("Q18", "U12", "C01", asked, "when's my weekly sync with my boss?", true, "T12"),
	q("Q19", "U12", "C02", asked, "when do I meet my manager?", false, "T12"),
	q("Q20", "U13", "C01", asked, "how long am I out of office?", true, "T13"),
	q("Q21", "U30", "C03", asked, "when do deploys go out?", false, "T14"),
	q("Q22", "U31", "C03", asked, "which days do we ship?", true, "T14"),
	q("Q23", "U32", "C03", asked, "how do I roll back a release?", false, "T15"),
	q("Q24", "U33", "C03", asked, "the rollout went bad, how do I undo it?", true, "T15"),
	q("Q25", "U34", "C04", asked, "why am I getting throttled?", true, "T16"),
	q("Q26", "U35", "C04", asked, "who approves a big refund?", false, "T17"),
	q("Q27", "U36", "C04", asked, "a customer wants their money back, who signs off?", true, "T17"),
	q("Q28", "U37", "C05", asked, "when does the pager switch to the next person?", true, "T18"),
	q("Q29", "U38", "C05", asked, "the replicas are behind, who do I escalate to?", true, "T19"),
	q("Q30", "U39", "C06", asked, "when are design reviews?", false, "T20"),
	q("Q31", "U40", "C06", asked, "when is the next crit?", true, "T20"),
	q("Q32", "U41", "C06", asked, "where do I find the design system?", true, "T21"),
	q("Q33", "U42", "C07", asked, "how fresh is the data in Snowflake?", true, "T22"),
	q("Q34", "U43", "C07", asked, "where are the revenue dashboards?", false, "T23"),
	q("Q35", "U44", "C07", asked, "where can I see the sales charts?", true, "T23"),
	q("Q36", "U45", "C08", asked, "how do I get into prod in an emergency?", true, "T24"),
	q("Q37", "U46", "C08", asked, "what do I need to set up on my computer for compliance?", true, "T25"),
	q("Q38", "U47", "C08", asked, "what is our laptop encryption policy?", false, "T25"),
	q("Q39", "U48", "C09", asked, "an enterprise customer is angry, who do I hand this to?", false, "T26"),
	q("Q40", "U49", "C09", asked, "where are the canned answers?", true, "T27"),
	q("Q41", "U50", "C10", asked, "where are the certificates for the iPhone release?", true, "T28"),
	q("Q42", "U01", "C11", asked, "how do I install dependencies for the website?", true, "T29"),
	q("Q43", "U02", "C12", asked, "what endpoint does the readiness probe hit?", true, "T30"),
	q("Q44", "U03", "C13", asked, "how do we apply terraform changes?", false, "T31"),
	q("Q45", "U04", "C13", asked, "how do I ship an infrastructure as code update?", true, "T31"),
	q("Q46", "U05", "C14", asked, "where should I file an idea for the product?", true, "T32"),
	q("Q47", "U06", "C15", asked, "who has to approve my article?", true, "T33"),
	q("Q48", "U07", "C16", asked, "can I give this account a big price cut?", true, "T34"),
	q("Q49", "U08", "C17", asked, "when is my scorecard due for the candidate?", true, "T35"),
	q("Q50", "U09", "C18", asked, "when do I need to submit receipts?", true, "T36"),
	q("Q51", "U10", "C18", asked, "when are expense reports due?", false, "T36"),
	q("Q52", "U11", "C19", asked, "how do I get on the internet here?", true, "T37"),
	q("Q53", "U12", "C09", asked, "what is the wifi network?", false, "T37"),
	q("Q54", "U13", "C02", asked, "which days off do we get this year?", true, "T38"),
	q("Q55", "U14", "C20", asked, "the site is down, what do I do?", true, "T39"),
	q("Q56", "U15", "C20", asked, "how do I declare an incident?", false, "T39"),
	q("Q57", "U16", "C02", asked, "can I still merge before the quarterly release?", false, "T40"),
	q("Q58", "U40", "C02", "1700000300.000100", "what did we decide here?", true, "T41"),
	q("Q59", "U41", "C12", "1700000400.000100", "why did it break?", true, "T42"),
	q("Q60", "U14", "C04", asked, "how do you format timestamps for me?", true, "T43"),
	q("Q61", "U15", "C01", asked, "which docs am I responsible for?", true, "T44"),
	q("Q62", "U16", "C11", asked, "show me snippets in my language", true, "T45"),
	q("Q63", "U17", "C04", asked, "can I help translate for the customer call?", true, "T46"),
	q("Q64", "U18", "C02", asked, "should I schedule a standup for you?", true, "T47"),
	q("Q65", "U19", "C02", asked, "which project am I on?", true, "T48"),
	q("Q66", "U20", "C05", asked, "should you wake me for this alert?", true, "T49"),
	q("Q67", "U21", "C15", asked, "take dark mode screenshots for the docs", false, "T50"),
	q("Q68", "U03", "C13", asked, "how do I change infrastructure through a pull request?", false, "T31"),
}

// personalKinds are the distractors people say about themselves, one per tag.
var personalKinds = []struct{ tag, kind, content, cues string }{
	{"editor", "preference", "Prefers {editor} for quick edits", "editor, IDE, text editor"},
	{"summary", "preference", "Wants release notes summarized in three lines", "release notes, summary, changelog"},
	{"reply-language", "preference", "Wants replies in {tongue}", "language, reply language, translation"},
	{"diet", "knowledge", "Is allergic to peanuts", "allergy, food, diet, catering"},
	{"office", "knowledge", "Works remotely from {city}", "remote, location, office, where based"},
	{"format", "preference", "Likes long, detailed explanations with examples", "answer format, detail, response style"},
	{"meetings", "preference", "Prefers no meetings on {day}s", "meetings, calendar, focus time, availability"},
	{"role", "knowledge", "Is a staff engineer on the {team} team", "role, title, team, responsibilities"},
	{"scripting", "preference", "Prefers {lang} for backend services", "programming language, backend, stack"},
	{"alerts", "preference", "Wants {tool} alerts sent by email, not Slack", "alerts, notifications, email, monitoring"},
	{"one-on-one", "knowledge", "Mentors two junior engineers on {day}s", "mentoring, coaching, calendar"},
	{"leave", "knowledge", "Takes the first week of {month} off every year", "vacation, time off, OOO, availability"},
	{"dates", "preference", "Prefers times written in 24-hour format", "time format, clock, formatting"},
	{"runbook", "knowledge", "Maintains the {team} onboarding guide", "documentation, onboarding, owner"},
	{"samples", "preference", "Likes diagrams in design docs", "diagrams, docs, visuals"},
	{"spoken", "knowledge", "Is learning {tongue}", "languages, learning, lessons"},
	{"async", "preference", "Likes a weekly written summary of the {team} team's work", "weekly update, summary, status"},
	{"project", "knowledge", "Worked on the {team} migration last year", "past projects, history, experience"},
	{"paging", "preference", "Wants a heads-up before any change to {tool}", "notifications, changes, heads-up"},
	{"screenshots", "preference", "Prefers light mode in shared dashboards", "theme, dashboards, display"},
	{"timezone", "knowledge", "Usually online from {clock} {tzname}", "working hours, availability, online, time zone"},
	{"coffee", "preference", "Drinks oat milk lattes", "coffee, drinks, office kitchen"},
	{"music", "preference", "Likes lo-fi music in focus sessions", "music, focus, playlists"},
}

// channelKinds are notes a channel keeps about its topic; several contain
// "time", as real ones do, and many share words with the questions.
var channelKinds = []struct{ kind, content, cues string }{
	{"knowledge", "The {topic} dashboards live in {tool}", "dashboards, metrics, monitoring"},
	{"knowledge", "Build time for the {topic} repo dropped to {n} minutes after caching", "CI speed, build duration, pipeline"},
	{"knowledge", "Response time alerts for the {topic} service fire above {n} ms", "latency, alerting, SLO"},
	{"knowledge", "{topic} logs are kept for {n} days in {tool}", "log retention, logs, observability"},
	{"knowledge", "The {topic} standup moved to {clock} on {day}s", "standup, daily meeting, sync"},
	{"knowledge", "The {topic} roadmap is tracked in {tool}", "roadmap, planning, priorities"},
	{"procedure", "The {topic} test data is reset every {day}", "test data, fixtures, reset"},
	{"knowledge", "The {topic} service is written in {lang}", "stack, language, tech stack"},
	{"knowledge", "Lunch time demos about {topic} happen every other {day}", "demo, show and tell, presentations"},
	{"knowledge", "The {topic} budget review happens in {month}", "budget, planning, finance"},
	{"procedure", "New {topic} joiners get a buddy for their first month", "onboarding, buddy, new hire"},
	{"knowledge", "The {topic} handbook is in {tool}", "documentation, handbook, guide"},
	{"procedure", "Questions about {topic} go to the #{channel} channel first", "questions, help, where to ask"},
	{"knowledge", "The {topic} team retro is at the end of each sprint", "retrospective, sprint, team meeting"},
	{"knowledge", "Time zones for the {topic} team span {tzname} and CET", "team time zones, distributed team, hours"},
	{"procedure", "Tag {topic} changes with the {team} label in {tool}", "labels, tagging, tracking"},
	{"knowledge", "The {topic} error budget resets on the first of the month", "error budget, SLO, reliability"},
	{"knowledge", "The {topic} quarterly goals were set in {month}", "OKRs, goals, quarter"},
	{"procedure", "Pair on {topic} reviews when a change touches more than {n} files", "code review, pairing, large changes"},
	{"knowledge", "Office hours for {topic} are on {day}s at {clock}", "office hours, help, availability"},
	{"knowledge", "The {topic} vendor contract renews in {month}", "vendor, contract, renewal"},
	{"procedure", "Record {topic} decisions in the decision log in {tool}", "decision log, ADR, documentation"},
	{"knowledge", "The {topic} team has a shared calendar in {tool}", "calendar, schedule, team events"},
	{"knowledge", "Load tests for the {topic} service run every {day} night", "performance, load testing, capacity"},
	{"knowledge", "Time off requests for the {topic} team go through {tool}", "PTO, leave, vacation requests"},
	{"procedure", "Archive stale {topic} tickets after {n} days", "cleanup, tickets, triage"},
}

var conversationKinds = []struct{ content, cues string }{
	{"In this thread we agreed to pause the {topic} rollout until {day}", "decision, pause, rollout"},
	{"The fix discussed here for {topic} is behind a feature flag", "fix, feature flag, status"},
	{"This thread's action items are tracked in {tool}", "action items, follow-ups, tasks"},
	{"For this launch, the {team} team owns the announcement", "launch, announcement, owner"},
}

var workspaceKinds = []struct{ content, cues string }{
	{"The all-hands meeting is on the first {day} of each month", "all hands, company meeting, calendar"},
	{"The {tool} workspace is the place for company docs", "documentation, wiki, where to find docs"},
	{"Visitors must sign in at the front desk", "visitors, guests, front desk, office"},
	{"The parking garage closes at {clock}", "parking, garage, office hours"},
	{"Company swag is ordered through {tool}", "swag, merchandise, orders"},
	{"The {month} offsite will be in {city}", "offsite, retreat, travel"},
}

var fills = map[string][]string{
	"editor": {"VS Code", "Emacs", "Zed", "IntelliJ", "Sublime Text"},
	"tongue": {"French", "German", "Japanese", "Italian", "Dutch"},
	"city":   {"Lisbon", "Toronto", "Austin", "Dublin", "Warsaw", "Bangalore"},
	"day":    {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"},
	"team":   {"platform", "growth", "data", "infra", "mobile", "security", "payments"},
	"lang":   {"Go", "Rust", "Kotlin", "Java", "Elixir", "Ruby"},
	"tool":   {"Grafana", "Datadog", "Notion", "Confluence", "Jira", "Linear", "Sentry", "PagerDuty"},
	"month":  {"January", "February", "May", "July", "September", "October", "November"},
	"clock":  {"9am", "11am", "1pm", "4pm", "5:30pm"},
	"tzname": {"Eastern Time", "Central European Time", "India Standard Time", "Japan Standard Time"},
	"n":      {"5", "12", "30", "45", "90", "250", "400"},
}

func fillIn(r *rand.Rand, s string, extra map[string]string) string {
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			return s
		}
		end := strings.IndexByte(s[open:], '}') + open
		name := s[open+1 : end]
		v, ok := extra[name]
		if !ok {
			list := fills[name]
			v = list[r.IntN(len(list))]
		}
		s = s[:open] + v + s[end+1:]
	}
}

// buildLabelled assembles the corpus: the answers, then the distractors.
func buildLabelled() *Labelled {
	r := rand.New(rand.NewPCG(14, 15))
	l := &Labelled{Team: labelTeam}
	for i, n := range labelNames {
		l.People = append(l.People, LabelledPerson{ID: person(i + 1), Name: n})
	}
	for _, c := range labelChannels {
		l.Channels = append(l.Channels, LabelledPlace{ID: c.id, Name: c.name, Visibility: c.vis})
	}
	tags := map[string][]string{}
	for _, tg := range targets {
		l.Memories = append(l.Memories, tg.LabelledMemory)
		if tg.tag != "" {
			tags[tg.Actor] = append(tags[tg.Actor], tg.tag)
		}
	}
	n := 0
	add := func(m LabelledMemory) {
		n++
		m.ID = fmt.Sprintf("D%04d", n)
		m.AgeDays = r.IntN(360)
		l.Memories = append(l.Memories, m)
	}
	publicChannel := func() string {
		for {
			c := labelChannels[r.IntN(len(labelChannels))]
			if c.vis == "public" {
				return c.id
			}
		}
	}
	// What people said about themselves: 7 each, never of the kind of
	// their answer, said in public channels or their DM.
	for i := range labelNames {
		id := person(i + 1)
		perm := r.Perm(len(personalKinds))
		k := 0
		for _, j := range perm {
			pk := personalKinds[j]
			if slices.Contains(tags[id], pk.tag) || k == 7 {
				continue
			}
			k++
			channel := publicChannel()
			if r.IntN(3) == 0 {
				channel = "D" + id
			}
			add(LabelledMemory{Scope: "personal", Kind: pk.kind, Actor: id, Channel: channel, Thread: fmt.Sprintf("1700001%03d.000100", r.IntN(1000)),
				Content: fillIn(r, pk.content, nil), Cues: splitCues(fillIn(r, pk.cues, nil))})
		}
	}
	// Channel notes: 26 per channel, one of each kind.
	for _, c := range labelChannels {
		for _, ck := range channelKinds {
			extra := map[string]string{"topic": c.topic, "channel": c.name}
			content := fillIn(r, ck.content, extra)
			content = strings.ToUpper(content[:1]) + content[1:]
			add(LabelledMemory{Scope: "channel", Kind: ck.kind, Actor: person(1 + r.IntN(len(labelNames))), Channel: c.id,
				Thread: fmt.Sprintf("1700002%03d.000100", r.IntN(1000)), Content: content, Cues: splitCues(ck.cues)})
		}
	}
	// Threads' own memories: 3 threads per channel.
	for _, c := range labelChannels {
		for k := range 3 {
			ck := conversationKinds[(k+len(c.id))%len(conversationKinds)]
			add(LabelledMemory{Scope: "conversation", Kind: "knowledge", Actor: person(1 + r.IntN(len(labelNames))), Channel: c.id,
				Thread: fmt.Sprintf("1700003%03d.000100", k), Content: fillIn(r, ck.content, map[string]string{"topic": c.topic}), Cues: splitCues(ck.cues)})
		}
	}
	// Workspace notes, written by an admin in #general.
	for k := 0; len(l.Memories) < 1010; k++ {
		wk := workspaceKinds[k%len(workspaceKinds)]
		add(LabelledMemory{Scope: "workspace", Kind: "knowledge", Actor: "U37", Channel: "C01",
			Thread: fmt.Sprintf("1700004%03d.000100", k), Content: fillIn(r, wk.content, nil) + fmt.Sprintf(" (note %d)", k), Cues: splitCues(wk.cues)})
	}
	l.Queries = queries
	return l
}

// TestRetrievalCorpus keeps testdata/retrieval.json current and honest:
// its size, that every answer is visible to whoever asks for it, and that
// paraphrases share no word with their answers (and the other questions
// at least one).
func TestRetrievalCorpus(t *testing.T) {
	t.Parallel()
	l := buildLabelled()
	b, err := json.MarshalIndent(l, "", " ")
	require.NoError(t, err)
	b = append(b, '\n')
	if *update {
		require.NoError(t, os.WriteFile("testdata/retrieval.json", b, 0o644))
	}
	onDisk, err := os.ReadFile("testdata/retrieval.json")
	require.NoError(t, err)
	require.Equal(t, string(b), string(onDisk), "testdata/retrieval.json is stale: go test ./bench -run TestRetrievalCorpus -update")

	require.GreaterOrEqual(t, len(l.Memories), 1000)
	require.Len(t, l.People, 50)
	require.Len(t, l.Channels, 20)
	require.GreaterOrEqual(t, len(l.Queries), 60)
	para := 0
	byID := map[string]LabelledMemory{}
	for _, m := range l.Memories {
		require.NotContains(t, byID, m.ID)
		byID[m.ID] = m
		require.NotEmpty(t, m.Cues, m.ID)
	}
	d := testdb.New(t)
	for _, qu := range l.Queries {
		if qu.Paraphrase {
			para++
		}
		v := memory.ViewerAt(l.actor(qu.Asker), l.place(qu.Channel, qu.Thread))
		for _, id := range qu.Relevant {
			m := byID[id]
			require.NotEmpty(t, m.ID, "%s: answer %s exists", qu.ID, id)
			p := l.place(m.Channel, m.Thread)
			mem := memory.Memory{Team: l.Team, Scope: memory.Scope(m.Scope), Kind: memory.Kind(m.Kind), SubjectID: m.Actor,
				ChannelID: p.Channel, SourceKey: p.SourceKey, Visibility: provenance.Visibility(p.Visibility)}
			require.True(t, memory.Visible(v, mem, memory.Apply), "%s: %s may be applied for %s in %s", qu.ID, id, qu.Asker, qu.Channel)
			var shares bool
			require.NoError(t, d.Pool.QueryRow(context.Background(),
				"SELECT to_tsvector('english', $1) @@ websearch_to_tsquery('english', $2)", m.Content, orWords(qu.Text)).Scan(&shares))
			require.Equal(t, !qu.Paraphrase, shares, "%s (paraphrase %v) and %s: %q / %q", qu.ID, qu.Paraphrase, id, qu.Text, m.Content)
		}
	}
	require.GreaterOrEqual(t, para*2, len(l.Queries), "half the questions are paraphrases")
}

func orWords(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}), " or ")
}
