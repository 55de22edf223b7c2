CREATE TABLE "knowledge_chunk_versions" (
	"company_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_chunks" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "knowledge_chunks_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"company_id" text NOT NULL,
	"collection_id" text NOT NULL,
	"document_id" text NOT NULL,
	"filename" text NOT NULL,
	"folder_path" text,
	"position" integer NOT NULL,
	"text" text NOT NULL,
	"tokens" integer NOT NULL,
	"page" integer,
	"sheet" text,
	"heading" text,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "text")) STORED NOT NULL,
	"embedding" "bytea" NOT NULL,
	"embedding_model" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_chunks_document_position" ON "knowledge_chunks" USING btree ("document_id","position");--> statement-breakpoint
CREATE INDEX "knowledge_chunks_company_seq" ON "knowledge_chunks" USING btree ("company_id","seq");--> statement-breakpoint
CREATE INDEX "knowledge_chunks_tsv" ON "knowledge_chunks" USING gin ("tsv");