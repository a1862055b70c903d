package corpus

// The vocabulary the sentences are made of: the things a software company
// talks about in Slack.

var services = []string{
	"payments", "billing", "checkout", "search", "auth", "notifications", "inventory", "reporting",
	"onboarding", "analytics", "mobile app", "web app", "data pipeline", "API gateway", "ledger",
	"invoicing", "recommendations", "shipping", "fraud detection", "support portal", "pricing",
	"identity", "email delivery", "feature flags", "media upload", "geocoding", "audit log",
	"subscriptions", "partner API", "warehouse sync",
}

var envs = []string{"staging", "production", "QA", "sandbox", "preview", "load-test"}

var tools = []string{
	"Terraform", "Kubernetes", "Grafana", "Datadog", "Sentry", "Jenkins", "GitHub Actions", "ArgoCD",
	"PagerDuty", "Jira", "Linear", "Notion", "Figma", "Postgres", "Redis", "Kafka", "Airflow", "dbt",
	"Snowflake", "Looker", "Vault", "Buildkite", "CircleCI", "Confluence", "Metabase", "Spinnaker",
}

var days = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}

var clock = []string{"9am", "9:30am", "10am", "10:30am", "11am", "1pm", "2pm", "3pm", "3:30pm", "4pm", "5pm"}

var places = []struct{ city, tz, abbr string }{
	{"San Francisco", "Pacific Time", "PT"}, {"Seattle", "Pacific Time", "PT"}, {"New York", "Eastern Time", "ET"},
	{"Toronto", "Eastern Time", "ET"}, {"Denver", "Mountain Time", "MT"}, {"Chicago", "Central Time", "CT"},
	{"London", "UK time", "GMT"}, {"Berlin", "Central European Time", "CET"}, {"Lisbon", "Western European Time", "WET"},
	{"Bangalore", "India Standard Time", "IST"}, {"Tokyo", "Japan Standard Time", "JST"}, {"Sydney", "Australian Eastern Time", "AEST"},
	{"São Paulo", "Brasília Time", "BRT"}, {"Warsaw", "Central European Time", "CET"}, {"Singapore", "Singapore Time", "SGT"},
}

var editors = []string{"Neovim", "VS Code", "Emacs", "IntelliJ", "Sublime Text", "Zed", "Helix", "GoLand"}

var langs = []string{"Go", "Python", "TypeScript", "Rust", "Java", "Kotlin", "Ruby", "Elixir", "Bash"}

var teams = []string{"platform", "growth", "data", "infra", "mobile", "design", "security", "SRE", "finance", "support", "payments", "frontend"}

var tongues = []string{"French", "Spanish", "German", "Japanese", "Portuguese", "Italian", "Dutch", "Polish"}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

var rooms = []string{"Atlas", "Borealis", "Cedar", "Delta", "Everest", "Fjord", "Granite", "Harbor", "Juniper", "Kestrel"}

var firstNames = []string{
	"Alice", "Bob", "Carol", "Dan", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Karl", "Lena", "Mallory",
	"Nina", "Oscar", "Peggy", "Quinn", "Rupert", "Sybil", "Trent", "Uma", "Victor", "Wendy", "Xavier", "Yara", "Zoe",
	"Amir", "Bea", "Chen", "Dario", "Elif", "Femi", "Gita", "Hugo", "Ines", "Jonas", "Kaito", "Lucia", "Mateo", "Noor",
}

var lastInitials = "ABCDEFGHIJKLMNOPRSTVWZ"
