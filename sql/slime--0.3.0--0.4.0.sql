-- slime 0.3.0 -> 0.4.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.4.0'" to load this file. \quit

