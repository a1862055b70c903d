package db

import "github.com/mnemo-bot/mnemo/db/internal/dbsqlc"

// RetentionStatements exposes retention's DELETEs to the EXPLAIN test.
var RetentionStatements = dbsqlc.RetentionStatements
