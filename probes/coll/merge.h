/* Rank 0's view of a collective job: the result from every rank's report
 * and the verdicts that name a rank or a link. */
#ifndef IX_COLL_MERGE_H
#define IX_COLL_MERGE_H

#include "probes/coll/coll.h"

/*
 * res->opts, nranks, ranks (every rank's report, in rank order; a rank that
 * sent none has joined and complete false and its error saying so) and
 * missing set by the caller; fills the rows (a cell only where every rank
 * measured it), the pairs and the verdict, the ceiling, and complete; a
 * merge again starts from the reports alone (res zeroed before the first).
 *
 * A ring link is slow when below IX_COLL_SLOW_SHARE of the median of the
 * other links of its kind (within a node, or across nodes); when the only
 * slow links are the two of one rank, and they are slow against the links
 * that do not touch it, that rank is named; one slow link alone is named
 * as a link.
 */
void ix_coll_merge(struct ix_coll_result *res);

#endif
