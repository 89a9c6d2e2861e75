"""The one engine every run goes through: dumps, or a table in memory, measured chunk by chunk into
partial aggregates, merged and finished with the passes; several dumps on local processes or Dask workers."""
