-- CreateTable
CREATE TABLE "FeedEvent" (
    "sequence" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FeedEvent_pkey" PRIMARY KEY ("sequence")
);

-- CreateIndex
CREATE INDEX "FeedEvent_createdAt_idx" ON "FeedEvent"("createdAt");
