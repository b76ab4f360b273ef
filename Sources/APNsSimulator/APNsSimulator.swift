// APNsSimulator
