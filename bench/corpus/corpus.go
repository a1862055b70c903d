package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Team is the workspace of the corpus; OtherTeam holds a few rows of a
// second workspace, which no query may ever return.
const (
	Team      = "TBENCH01"
	OtherTeam = "TBENCH02"
	People    = 2000
	Public    = 360 // public channels
	Private   = 60  // private channels
)

// Spec names one corpus.
type Spec struct {
	Rows int
	Seed uint64
	// Now is the corpus's present: ages are counted back from it.
	Now time.Time
}

// Row is one memory, with the columns COPY writes.
type Row struct {
	ID                                                    uuid.UUID
	Team, Scope, SubjectType, SubjectID, Kind             string
	Content, Normalized, Cues                             string
	SourceKey, ChannelID, Visibility, ActorID, ActorName  string
	WrittenBy, MessageTS                                  string
	ObservedAt, CreatedAt                                 time.Time
	ExpiresAt, ArchivedAt                                 *time.Time
	ArchivedReason, ArchivedBy, IdempotencyKey, Sensitive string
}

// Columns are Row's columns in the order Values gives them.
var Columns = []string{
	"id", "team_id", "scope", "subject_type", "subject_id", "kind", "content", "normalized", "cues",
	"source_key", "channel_id", "visibility", "actor_id", "actor_name", "written_by", "message_ts",
	"observed_at", "created_at", "expires_at", "archived_at", "archived_reason", "archived_by",
	"idempotency_key", "sensitive",
}

// Values is the row as COPY takes it.
func (r Row) Values() []any {
	var reason, by *string
	if r.ArchivedAt != nil {
		reason, by = &r.ArchivedReason, &r.ArchivedBy
	}
	return []any{
		r.ID, r.Team, r.Scope, r.SubjectType, r.SubjectID, r.Kind, r.Content, r.Normalized, r.Cues,
		r.SourceKey, r.ChannelID, r.Visibility, r.ActorID, r.ActorName, r.WrittenBy, r.MessageTS,
		r.ObservedAt, r.CreatedAt, r.ExpiresAt, r.ArchivedAt, reason, by, r.IdempotencyKey, r.Sensitive,
	}
}

// Person is one member of the workspace.
type Person struct{ ID, Name string }

// PersonAt returns the i-th person (0 ≤ i < People).
func PersonAt(i int) Person {
	return Person{
		ID:   fmt.Sprintf("U%05d", i+1),
		Name: firstNames[i%len(firstNames)] + " " + string(lastInitials[(i/len(firstNames))%len(lastInitials)]) + ".",
	}
}

// channel i: public first, then private.
func channelID(i int) string {
	if i < Public {
		return fmt.Sprintf("C%05d", i+1)
	}
	return fmt.Sprintf("G%05d", i-Public+1)
}

func dmID(person int) string { return fmt.Sprintf("D%05d", person+1) }

// threadsPer is how many threads each channel has: more as the corpus
// grows, so that threads stay small.
func (s Spec) threadsPer() int { return max(10, s.Rows/2000) }

func threadTS(channel, thread int) string {
	return fmt.Sprintf("%d.%06d", 1700000000+thread*97+channel, channel)
}

// Place is where a memory was said or a question asked.
type Place = provenance.Place

func channelPlace(ch, thread int) Place {
	vis := provenance.Public
	if ch >= Public {
		vis = provenance.Private
	}
	id := channelID(ch)
	return Place{Team: Team, Channel: id, SourceKey: "slack:" + Team + ":" + id + ":" + threadTS(ch, thread), Visibility: vis}
}

func dmPlace(person, thread int) Place {
	id := dmID(person)
	return Place{Team: Team, Channel: id, SourceKey: "slack:" + Team + ":" + id + ":" + threadTS(Public+Private+person, thread), Visibility: provenance.DM}
}

// skewed draws an index in [0, n) where low indexes are far likelier, as
// activity is in a workspace: a few channels and people do most of it.
type skewed struct{ cdf []float64 }

func newSkewed(n int, s float64) skewed {
	cdf := make([]float64, n)
	total := 0.0
	for i := range n {
		total += 1 / math.Pow(float64(i+1), s)
		cdf[i] = total
	}
	for i := range cdf {
		cdf[i] /= total
	}
	return skewed{cdf}
}

func (k skewed) draw(r *rand.Rand) int {
	return min(sort.SearchFloat64s(k.cdf, r.Float64()), len(k.cdf)-1)
}

var (
	publicPick  = newSkewed(Public, 0.8)
	privatePick = newSkewed(Private, 0.8)
	personPick  = newSkewed(People, 0.5)
	threadPick  = func(r *rand.Rand, n int) int { return int(r.ExpFloat64()*float64(n)/4) % n }
)

// Row returns the i-th row of the corpus. Rows are independent, so they can
// be generated in any order or in parallel.
func (s Spec) Row(i int) Row {
	r := rand.New(rand.NewPCG(s.Seed, uint64(i)))
	team := Team
	if i%100 == 99 {
		team = OtherTeam
	}
	var scope string
	switch x := r.Float64(); {
	case x < 0.40:
		scope = "personal"
	case x < 0.62:
		scope = "conversation"
	case x < 0.975:
		scope = "channel"
	default:
		scope = "workspace"
	}
	person := personPick.draw(r)
	actor := PersonAt(person)
	var place Place
	switch scope {
	case "personal":
		switch x := r.Float64(); {
		case x < 0.35:
			place = dmPlace(person, threadPick(r, s.threadsPer()))
		case x < 0.9:
			place = channelPlace(publicPick.draw(r), threadPick(r, s.threadsPer()))
		default:
			place = channelPlace(Public+privatePick.draw(r), threadPick(r, s.threadsPer()))
		}
	case "workspace":
		if r.Float64() < 0.92 {
			place = channelPlace(publicPick.draw(r), threadPick(r, s.threadsPer()))
		} else {
			place = channelPlace(Public+privatePick.draw(r), threadPick(r, s.threadsPer()))
		}
	default:
		if r.Float64() < 0.85 {
			place = channelPlace(publicPick.draw(r), threadPick(r, s.threadsPer()))
		} else {
			place = channelPlace(Public+privatePick.draw(r), threadPick(r, s.threadsPer()))
		}
	}
	place.Team = team
	place.SourceKey = strings.Replace(place.SourceKey, ":"+Team+":", ":"+team+":", 1)

	t := pickTemplate(r, scope)
	content := fill(r, t.text, actor)
	if r.Float64() < 0.3 && scope != "personal" {
		content += fill(r, suffixes[r.IntN(len(suffixes))], actor)
	}
	cues := fill(r, t.cues, actor)

	created := s.createdAt(i, r)
	row := Row{
		ID: uuidFrom(r), Team: team, Scope: scope, SubjectType: string(memory.Scope(scope).DefaultSubject()), Kind: t.kind,
		Content: content, Normalized: memory.Normalize(content), Cues: cues, SourceKey: place.SourceKey,
		ChannelID: place.Channel, Visibility: string(place.Visibility), ActorID: actor.ID, ActorName: actor.Name,
		WrittenBy: writtenBy(r), MessageTS: fmt.Sprintf("%d.%06d", created.Unix(), i%1000000),
		ObservedAt: created.Add(-time.Duration(r.IntN(600)) * time.Second), CreatedAt: created,
		IdempotencyKey: idempotency(s.Seed, i), Sensitive: t.sensitive,
	}
	switch scope {
	case "personal":
		row.SubjectID = actor.ID
	case "conversation":
		row.SubjectID = place.SourceKey
	case "channel":
		row.SubjectID = place.Channel
	default:
		row.SubjectID = team
	}
	switch x := r.Float64(); {
	case x < 0.04:
		at := created.Add(time.Duration(r.IntN(30*24)) * time.Hour)
		row.ArchivedAt, row.ArchivedReason, row.ArchivedBy = &at, "superseded", actor.ID
	case x < 0.07:
		exp := s.Now.Add(time.Duration(1+r.IntN(60)) * 24 * time.Hour)
		row.ExpiresAt = &exp
	case x < 0.08:
		exp := s.Now.Add(-time.Duration(1+r.IntN(60)) * 24 * time.Hour)
		row.ExpiresAt = &exp
	}
	return row
}

// createdAt spreads the rows over two years in the order they are
// generated, as a table fills over time, with more of them recent.
func (s Spec) createdAt(i int, r *rand.Rand) time.Time {
	const span = 730 * 24 * time.Hour
	f := 1 - float64(i)/float64(max(s.Rows, 1)) // 1 for the oldest row, near 0 for the newest
	age := time.Duration(f*f*float64(span)) + time.Duration(r.IntN(3600))*time.Second
	return s.Now.Add(-age)
}

// byScope indexes the templates each scope may use.
var byScope = func() map[string][]int {
	m := map[string][]int{}
	for i, t := range templates {
		for _, c := range t.scopes {
			s := map[rune]string{'p': "personal", 'c': "conversation", 'h': "channel", 'w': "workspace"}[c]
			m[s] = append(m[s], i)
		}
	}
	return m
}()

func pickTemplate(r *rand.Rand, scope string) template {
	list := byScope[scope]
	return templates[list[r.IntN(len(list))]]
}

func writtenBy(r *rand.Rand) string {
	switch x := r.Float64(); {
	case x < 0.6:
		return "explicit"
	case x < 0.95:
		return "passive"
	case x < 0.98:
		return "admin"
	}
	return "mcp"
}

// fill replaces the template's slots with words drawn from r. One draw per
// template, so {city} and {tz} agree.
func fill(r *rand.Rand, text string, actor Person) string {
	if !strings.Contains(text, "{") {
		return text
	}
	p := places[r.IntN(len(places))]
	var b strings.Builder
	for {
		open := strings.IndexByte(text, '{')
		if open < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := strings.IndexByte(text[open:], '}') + open
		b.WriteString(text[:open])
		b.WriteString(slot(r, text[open+1:end], p))
		text = text[end+1:]
	}
}

func slot(r *rand.Rand, name string, p struct{ city, tz, abbr string }) string {
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	switch name {
	case "service":
		return services[newSkewedIndex(r, len(services))]
	case "env":
		return pick(envs)
	case "tool":
		return pick(tools)
	case "day":
		return pick(days)
	case "clock":
		return pick(clock)
	case "city":
		return p.city
	case "tz":
		return p.tz
	case "abbr":
		return p.abbr
	case "editor":
		return pick(editors)
	case "lang":
		return pick(langs)
	case "team":
		return pick(teams)
	case "tongue":
		return pick(tongues)
	case "month":
		return pick(months)
	case "room":
		return pick(rooms)
	case "name":
		return firstNames[r.IntN(len(firstNames))]
	case "n":
		return strconv.Itoa(5 + r.IntN(60)*5)
	}
	return name
}

// newSkewedIndex favours the first services, as a few systems get most of
// the talk.
func newSkewedIndex(r *rand.Rand, n int) int {
	return min(int(r.ExpFloat64()*float64(n)/3), n-1)
}

func uuidFrom(r *rand.Rand) uuid.UUID {
	var u uuid.UUID
	for i := 0; i < 16; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			u[i+j] = byte(v >> (8 * j))
		}
	}
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return u
}

func idempotency(seed uint64, i int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("corpus/%d/%d", seed, i)))
	return hex.EncodeToString(h[:])
}

// Query is one question asked of recall: who asks, where, the message
// (what auto-recall searches with) and the recall tool's short query.
type Query struct {
	Actor   provenance.Actor
	Place   Place
	Message string
	Tool    string
}

// Queries returns n questions asked by the corpus's people in its places:
// in channel threads, in private channels and in DMs with the bot.
func (s Spec) Queries(n int) []Query {
	out := make([]Query, 0, n)
	for i := range n {
		r := rand.New(rand.NewPCG(s.Seed^0x9e3779b97f4a7c15, uint64(i)))
		person := personPick.draw(r)
		p := PersonAt(person)
		var place Place
		switch x := r.Float64(); {
		case x < 0.55:
			place = channelPlace(publicPick.draw(r), threadPick(r, s.threadsPer()))
		case x < 0.7:
			place = channelPlace(Public+privatePick.draw(r), threadPick(r, s.threadsPer()))
		default:
			place = dmPlace(person, threadPick(r, s.threadsPer()))
		}
		q := questions[r.IntN(len(questions))]
		seed := r.Uint64()
		msg := fill(rand.New(rand.NewPCG(seed, 1)), q.message, p)
		tool := fill(rand.New(rand.NewPCG(seed, 1)), q.tool, p)
		if r.Float64() < 0.1 {
			for _, t := range typos {
				if strings.Contains(tool, t[0]) {
					tool = strings.Replace(tool, t[0], t[1], 1)
					break
				}
			}
		}
		out = append(out, Query{
			Actor:   provenance.Actor{Kind: provenance.KindUser, Team: Team, ID: p.ID, Name: p.Name},
			Place:   place,
			Message: msg,
			Tool:    tool,
		})
	}
	return out
}
