-- slime 0.4.0 -> 0.5.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.5.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets.

-- ==== security (issue #25) ==================================================

-- ==== game-server path (issue #21) ===========================================

-- ==== storage at rest (issue #22) ============================================
