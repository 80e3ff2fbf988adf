"""The one-file client learners download (grader_client.py): served as text by grader.web.api_client, never
imported by the service; it imports nothing of grader."""
