DROP INDEX `calls_org_upstream_request_idx`;--> statement-breakpoint
DROP INDEX `calls_org_upstream_response_idx`;--> statement-breakpoint
-- The call-cost route finds a call by its upstream request id or response id. Those ids are random,
-- and a B-tree index on them took a random insert per id per call: a page written to the WAL and
-- checkpointed for each, ~28 µs a call at 300k calls and growing (docs/decisions.md, "Upstream ids
-- on SQLite"). FTS5 keeps its terms in segments written in order and merged by later writes, an
-- LSM tree: ~1-3 µs a call. Contentless (the ids stay in `calls`, found by rowid), with the `ascii`
-- tokenizer and every ASCII punctuation character a token character, so that an id is one term
-- unless it holds whitespace. New calls are added by the code that inserts them, one statement a
-- batch (`sqlite/upstream-ids.ts`): an insert trigger cost ~8 µs a call more (measured; each
-- insert of a call then opens a savepoint on the FTS5 table). Deletes and changes of the ids are
-- rare and come in batches: triggers keep those.
CREATE VIRTUAL TABLE `calls_upstream_ids` USING fts5(
	upstream_request_id, upstream_response_id,
	content='', contentless_delete=1,
	tokenize="ascii tokenchars '!""#$%&''()*+,-./:;<=>?@[\]^_`{|}~'"
);
--> statement-breakpoint
CREATE TRIGGER `calls_upstream_ids_delete` AFTER DELETE ON `calls` BEGIN
	DELETE FROM `calls_upstream_ids` WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `calls_upstream_ids_update` AFTER UPDATE OF upstream_request_id, upstream_response_id ON `calls` BEGIN
	DELETE FROM `calls_upstream_ids` WHERE rowid = old.rowid;
	INSERT INTO `calls_upstream_ids` (rowid, upstream_request_id, upstream_response_id)
		VALUES (new.rowid, new.upstream_request_id, new.upstream_response_id);
END;
--> statement-breakpoint
-- the calls already stored
INSERT INTO `calls_upstream_ids` (rowid, upstream_request_id, upstream_response_id)
	SELECT rowid, upstream_request_id, upstream_response_id FROM `calls`;
