"""Analysis at scale: bounded memory over chunks of a dump, and many dumps over local or Dask workers."""
