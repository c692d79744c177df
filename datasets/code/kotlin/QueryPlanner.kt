package dev.lumen.query

/**
 * Rewrites parsed queries into executable plans.
 *
 * The planner pushes filters down to segment readers and orders the clauses of a
 * conjunction from the most to the least selective.
 */

/** A node of a parsed query. */
sealed class QueryNode {
    data class Term(val field: String, val value: String) : QueryNode()
    data class Range(val field: String, val min: Double?, val max: Double?) : QueryNode()
    data class And(val clauses: List<QueryNode>) : QueryNode()
    data class Or(val clauses: List<QueryNode>) : QueryNode()
    object MatchAll : QueryNode()
}

/** Per-segment statistics used to estimate selectivity. */
interface SegmentStats {
    val docCount: Long
    fun docFrequency(field: String, term: String): Long
}

enum class AccessPath { INDEX_SCAN, FULL_SCAN }

data class PlanStep(val node: QueryNode, val path: AccessPath, val estimatedRows: Long)

class QueryPlanner(private val stats: SegmentStats) {

    /** Fraction of documents above which a full scan beats the index. */
    var fullScanThreshold: Double = 0.3

    fun plan(query: QueryNode): List<PlanStep> = when (query) {
        is QueryNode.And -> query.clauses
            .map { step(it) }
            .sortedBy { it.estimatedRows }
        else -> listOf(step(query))
    }

    fun estimate(node: QueryNode): Long = when (node) {
        is QueryNode.Term -> stats.docFrequency(node.field, node.value)
        is QueryNode.Range -> stats.docCount / 3
        is QueryNode.And -> node.clauses.minOfOrNull { estimate(it) } ?: stats.docCount
        is QueryNode.Or -> node.clauses.sumOf { estimate(it) }.coerceAtMost(stats.docCount)
        QueryNode.MatchAll -> stats.docCount
    }

    private fun step(node: QueryNode): PlanStep {
        val rows = estimate(node)
        val ratio = if (stats.docCount == 0L) 0.0 else rows.toDouble() / stats.docCount
        val path = if (ratio > fullScanThreshold) AccessPath.FULL_SCAN else AccessPath.INDEX_SCAN
        return PlanStep(node, path, rows)
    }

    companion object {
        /** Builds a planner over fixed statistics, handy in tests and the REPL. */
        fun withFixedStats(totalDocs: Long, frequencies: Map<String, Long>): QueryPlanner =
            QueryPlanner(object : SegmentStats {
                override val docCount = totalDocs
                override fun docFrequency(field: String, term: String) =
                    frequencies["$field:$term"] ?: 0L
            })
    }
}

/** Pretty-prints a plan, one step per line, for `lumen explain`. */
fun explain(plan: List<PlanStep>): String =
    plan.joinToString("\n") { "${it.path} ${it.node} (~${it.estimatedRows} rows)" }

fun testPlannerOrdersBySelectivity() {
    val planner = QueryPlanner.withFixedStats(1000, mapOf("status:open" to 600L, "tag:auth" to 12L))
    val plan = planner.plan(QueryNode.And(listOf(QueryNode.Term("status", "open"), QueryNode.Term("tag", "auth"))))
    check(plan.first().node == QueryNode.Term("tag", "auth"))
    check(plan.last().path == AccessPath.FULL_SCAN)
}
